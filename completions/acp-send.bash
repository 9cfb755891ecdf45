# bash completion for acp-send(1)                                      -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_send_options='
--stdin
--answer=           @file
--connect=          @address
--exec=             @command
--wait
--all
--timeout=
--io-timeout=
--grace=
-q --quiet
--strict
--max-errors=
--queen=
--slots=
--assign-timeout=
--max-skew=
--clock-skew=
--idle-timeout=
--max-open=
--fipa-profile=     caxton standard
--now=
--seed=
-o --output=        @file
--rejects=          @file
--diagnostics=      text json
--color=            auto always never
--stats
--max-line-bytes=
--explain=          @code
-h --help
--version
'
_acp_send() { _acp_complete acp-send "$_acp_send_options"; }
complete -F _acp_send acp-send
