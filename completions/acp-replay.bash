# bash completion for acp-replay(1)
#
# Bash splits the word under the cursor at the characters of COMP_WORDBREAKS ("=" and ":" among
# them by default), so the option and its value are taken from COMP_LINE, and each reply holds
# only what bash will replace: the text after the last break character typed.

# Replies for the value of an option: _acp_replay_values OPTION VALUE KEEP, where KEEP is what
# each reply must repeat before the value ("" when bash breaks the word at "=").
_acp_replay_values() {
    local words
    case $1 in
    --diagnostics) words="text json" ;;
    --color) words="auto always never" ;;
    --explain) words="list $(acp-replay --explain=list 2>/dev/null | cut -d' ' -f1)" ;;
    --exec)
        COMPREPLY=($(compgen -c -P "$3" -- "$2"))
        return
        ;;
    --output | --rejects)
        COMPREPLY=($(compgen -f -P "$3" -- "$2"))
        return
        ;;
    --connect)
        if [[ $2 == unix:* ]]; then
            if [[ $COMP_WORDBREAKS == *:* ]]; then
                COMPREPLY=($(compgen -f -- "${2#unix:}"))
            else
                COMPREPLY=($(compgen -f -P "$3unix:" -- "${2#unix:}"))
            fi
            return
        fi
        words="tcp: unix:"
        compopt -o nospace 2>/dev/null
        ;;
    *) return ;;
    esac
    COMPREPLY=($(compgen -P "$3" -W "$words" -- "$2"))
}

_acp_replay() {
    local line=${COMP_LINE:0:COMP_POINT}
    local word=${line##*[[:space:]]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    local opts="--speed= --topspeed --rate= --burst --loop= --limit= --duration= --max-gap=
        --start= --rewrite-ts --rewrite-ids --connect= --exec= --all --as= --timed
        --reply-timeout= --compare= --io-timeout= --grace= --no-progress --quiet --strict
        --max-errors= --now= --seed= --output= --rejects= --diagnostics= --color= --stats
        --max-line-bytes= --explain= --help --version -q -o"
    COMPREPLY=()
    if [[ $word == --*=* ]]; then
        local keep=""
        [[ $COMP_WORDBREAKS == *=* ]] || keep=${word%%=*}=
        _acp_replay_values "${word%%=*}" "${word#*=}" "$keep"
        return
    fi
    case $word in
    -*)
        COMPREPLY=($(compgen -W "$opts" -- "$word"))
        [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
        return
        ;;
    esac
    COMPREPLY=($(compgen -f -- "$word"))
    [[ $prev == -o ]] || return 0
}
complete -F _acp_replay acp-replay
