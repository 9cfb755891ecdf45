# bash completion for acp-replay(1)
_acp_replay() {
    local cur prev words cword
    _init_completion -s 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    }
    local opts="--speed= --topspeed --rate= --burst --loop= --limit= --duration= --max-gap=
        --start= --rewrite-ts --rewrite-ids --connect= --exec= --all --as= --timed
        --reply-timeout= --compare= --io-timeout= --grace= --no-progress --quiet --strict
        --max-errors= --now= --seed= --output= --rejects= --diagnostics= --color= --stats
        --max-line-bytes= --explain= --help --version -q -o"
    case $cur in
    --connect=*)
        COMPREPLY=($(compgen -W "tcp: unix:" -- "${cur#*=}"))
        [[ ${cur#*=} == unix:* ]] && COMPREPLY=($(compgen -f -P unix: -- "${cur#*=unix:}"))
        compopt -o nospace 2>/dev/null
        return
        ;;
    --exec=*)
        COMPREPLY=($(compgen -c -- "${cur#*=}"))
        return
        ;;
    --diagnostics=*)
        COMPREPLY=($(compgen -W "text json" -- "${cur#*=}"))
        return
        ;;
    --color=*)
        COMPREPLY=($(compgen -W "auto always never" -- "${cur#*=}"))
        return
        ;;
    --explain=*)
        COMPREPLY=($(compgen -W "list $(acp-replay --explain=list 2>/dev/null | cut -d' ' -f1)" -- "${cur#*=}"))
        return
        ;;
    --output=* | --rejects=*)
        COMPREPLY=($(compgen -f -- "${cur#*=}"))
        return
        ;;
    -*)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        [[ ${COMPREPLY[0]-} == *= ]] && compopt -o nospace 2>/dev/null
        return
        ;;
    esac
    case $prev in
    -o) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _acp_replay acp-replay
