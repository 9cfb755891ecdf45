# fish completion for acp-tap(1)
complete -c acp-tap -l out -r -F -d 'append the capture records to FILE'
complete -c acp-tap -l session -x -d 'the session id the records carry'
complete -c acp-tap -l buffer -x -d 'records waiting for a slow FILE'
complete -c acp-tap -l max-line-bytes -x -d 'record a longer line by its length alone'
complete -c acp-tap -s h -l help -d 'display help and exit'
complete -c acp-tap -l version -d 'output version information and exit'
# The command to run, until one is given: every word before it is an option.
function __acp_tap_needs_command
    for word in (commandline -opc)[2..-1]
        string match -q -- '-*' $word; or return 1
    end
    return 0
end
complete -c acp-tap -n __acp_tap_needs_command -a '(__fish_complete_command)'
