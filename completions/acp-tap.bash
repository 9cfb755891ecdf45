# bash completion for acp-tap(1)                                       -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_tap_options='
--out=              @file
--session=
--buffer=
--max-line-bytes=
-h --help
--version
'
# The command to run, then its arguments: a command's name first, file names after it.
_acp_tap_operand()
{
    local arg operands=0
    for arg in "${args[@]:1:${#args[@]}-2}"; do
        [[ $arg == -* ]] || operands=$((operands + 1))
    done
    if ((operands == 0)); then
        mapfile -t COMPREPLY < <(compgen -c -- "$1")
    else
        _acp_complete_value acp-tap @file "$1" ''
    fi
}
_acp_tap() { _acp_complete acp-tap "$_acp_tap_options" _acp_tap_operand; }
complete -F _acp_tap acp-tap
