# fish completion for acp-send(1)
complete -c acp-send -f
complete -c acp-send -l stdin -d 'complete, check and send each line of stdin'
complete -c acp-send -l answer -r -F -d 'compose the reply to the message in FILE'
complete -c acp-send -l connect -x -a 'tcp: unix:' -d 'send to a socket'
complete -c acp-send -l exec -x -a '(__fish_complete_command)' -d 'start COMMAND and send to its stdin'
complete -c acp-send -l wait -d 'follow each conversation to its end'
complete -c acp-send -l all -d "also write the peer's other messages"
complete -c acp-send -l timeout -x -d 'longest wait for the end of a conversation'
complete -c acp-send -l io-timeout -x -d 'longest wait to connect or for the peer to read'
complete -c acp-send -l grace -x -d 'time the peer has to finish once its input ends'
complete -c acp-send -s q -l quiet -d 'write nothing; only the exit status'
complete -c acp-send -l strict -d 'treat warnings as errors'
complete -c acp-send -l max-errors -x -d 'stop reading after N errors'
complete -c acp-send -l queen -x -d "the queen's agent name"
complete -c acp-send -l slots -x -d 'AGENT=N outstanding assigns'
complete -c acp-send -l assign-timeout -x -d 'seconds before the queen reissues'
complete -c acp-send -l max-skew -x -d 'tolerated clock skew'
complete -c acp-send -l clock-skew -x -d 'tolerated offset of a sender clock'
complete -c acp-send -l idle-timeout -x -d 'seconds after which idle state is forgotten'
complete -c acp-send -l max-open -x -d 'most open conversations kept'
complete -c acp-send -l request-timeout -x -d 'message time an MCP request waits for its response'
complete -c acp-send -l mcp-revision -x -a '2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28' -d 'check every MCP session as of this revision'
complete -c acp-send -l fipa-profile -x -a 'caxton standard' -d 'FIPA members required'
complete -c acp-send -l now -x -d 'the current time'
complete -c acp-send -l seed -x -d 'seed for fresh ids'
complete -c acp-send -s o -l output -r -F -d 'write the output to FILE'
complete -c acp-send -l rejects -r -F -d 'write rejected messages to FILE'
complete -c acp-send -l diagnostics -x -a 'text json' -d 'format of diagnostics'
complete -c acp-send -l color -x -a 'auto always never' -d 'colour diagnostics'
complete -c acp-send -l stats -d 'print the counts of the run at the end'
complete -c acp-send -l max-line-bytes -x -d 'longest line'
complete -c acp-send -l explain -x -a 'list (acp-send --explain=list </dev/null 2>/dev/null | string split -f1 " ")' -d 'explain a diagnostic code'
complete -c acp-send -s h -l help -d 'display help and exit'
complete -c acp-send -l version -d 'output version information and exit'
# A MEMBER=VALUE operand, as zsh's completion has it: the values of kind= (IACP) and
# performative= (FIPA), and those two names, which choose the protocol.
function __acp_send_member
    switch (commandline -ct)
        case 'kind=*'
            printf 'kind=%s\n' task.assign task.accept task.reject task.result task.cancel hb \
                mem.sync tool.query tool.reply ctl.drain ctl.halt
        case 'performative=*'
            printf 'performative=%s\n' accept_proposal agree cancel cfp confirm disconfirm failure \
                inform inform_if inform_ref not_understood propagate propose proxy query_if \
                query_ref refuse reject_proposal request request_when request_whenever subscribe \
                counter_propose
        case '-*' '*=*'
        case '*'
            printf '%s\n' kind= performative=
    end
end
complete -c acp-send -n 'not string match -q -- "-*" (commandline -ct)' -a '(__acp_send_member)'
