# bash completion for acp-validate                                   -*- shell-script -*-
_acp_validate()
{
    local cur prev words cword split
    _init_completion -s || return

    case $prev in
        --protocol)
            COMPREPLY=($(compgen -W 'auto iacp fipa' -- "$cur"))
            return ;;
        --diagnostics)
            COMPREPLY=($(compgen -W 'text json' -- "$cur"))
            return ;;
        --color)
            COMPREPLY=($(compgen -W 'auto always never' -- "$cur"))
            return ;;
        --explain)
            COMPREPLY=($(compgen -W "list $(acp-validate --explain=list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
            return ;;
        -o | --output | --rejects)
            _filedir
            return ;;
        --queen | --slots | --assign-timeout | --max-skew | --idle-timeout | --max-open | \
            --max-errors | --max-line-bytes | --clock-skew)
            return ;;
    esac
    $split && return

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '--protocol= --stateless --quiet --strict --max-errors=
            --queen= --slots= --assign-timeout= --max-skew= --idle-timeout= --max-open=
            --output= --rejects= --diagnostics= --color= --stats --max-line-bytes=
            --explain= --help --version -o -q --clock-skew=' -- "$cur"))
        [[ ${COMPREPLY-} == *= ]] && compopt -o nospace
        return
    fi
    _filedir
} &&
    complete -F _acp_validate acp-validate
