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
--request-timeout=
--mcp-revision=     2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28
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
# A MEMBER=VALUE operand, as zsh's completion has it: the values of kind= (IACP) and
# performative= (FIPA), and those two names, which choose the protocol.
_acp_send_member()
{
    local kinds='task.assign task.accept task.reject task.result task.cancel hb mem.sync
        tool.query tool.reply ctl.drain ctl.halt'
    local acts='accept_proposal agree cancel cfp confirm disconfirm failure inform inform_if
        inform_ref not_understood propagate propose proxy query_if query_ref refuse
        reject_proposal request request_when request_whenever subscribe counter_propose'
    case $1 in
    kind=*) _acp_complete_value acp-send "$kinds" "${1#kind=}" kind= ;;
    performative=*) _acp_complete_value acp-send "$acts" "${1#performative=}" performative= ;;
    *=*) ;;
    *)
        mapfile -t COMPREPLY < <(compgen -W 'kind= performative=' -- "$1")
        compopt -o nospace 2>/dev/null
        ;;
    esac
}
_acp_send() { _acp_complete acp-send "$_acp_send_options" _acp_send_member; }
complete -F _acp_send acp-send
