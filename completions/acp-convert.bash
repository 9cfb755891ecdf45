# bash completion for acp-convert(1)
_acp_convert() {
    local cur prev words cword
    _init_completion -s 2>/dev/null || {
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD - 1]}
    }
    local opts="--from= --to= --spelling= --idle-timeout= --max-open= --fipa-profile= --quiet --strict
        --max-errors= --now= --seed= --output= --rejects= --diagnostics= --color= --stats
        --max-line-bytes= --explain= --help --version -q -o"
    case $cur in
    --from=*)
        COMPREPLY=($(compgen -W "auto iacp fipa fipa-acl" -- "${cur#*=}"))
        return
        ;;
    --to=*)
        COMPREPLY=($(compgen -W "iacp fipa fipa-acl" -- "${cur#*=}"))
        return
        ;;
    --spelling=*)
        COMPREPLY=($(compgen -W "snake kebab upper" -- "${cur#*=}"))
        return
        ;;
    --fipa-profile=*)
        COMPREPLY=($(compgen -W "caxton standard" -- "${cur#*=}"))
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
        COMPREPLY=($(compgen -W "list $(acp-convert --explain=list 2>/dev/null | cut -d' ' -f1)" -- "${cur#*=}"))
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
complete -F _acp_convert acp-convert
