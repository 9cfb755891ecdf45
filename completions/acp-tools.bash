# The engine shared by the bash completions of acp-tools.                -*- shell-script -*-
# Each tool's file (completions/TOOL.bash) holds the table of its options in a variable named
# _TOOL_options (dashes as underscores: _acp_validate_options) and completes with
# `_acp_complete TOOL "$_TOOL_options"`; tests/docs.bats reads the table by that name.
# `make install` puts this engine in front of each tool's file, so an installed file stands alone.
#
# A table has one line per option, as --help lists them: the option's names (short one first),
# the long one ending in '=' when it takes a value, then what the value completes to: words,
# @file (file names), @code (the tool's diagnostic codes and 'list'), @command (command names),
# @address (tcp: or unix: and a file name), or nothing (a free value).
# Adding an option is adding its line.
#
# bash splits the command line into COMP_WORDS at the characters of COMP_WORDBREAKS, '=' and ':'
# among them, so `--to=fi` reaches a completion function as three words while the tool sees one.
# The engine reads the argument under the cursor from COMP_LINE instead, and hands back each
# candidate without the part of the argument that readline does not replace.

# Prints the value spec of option $2 in table $1 ("" for a free value), or fails when the option
# is unknown or takes no value. An unambiguous abbreviation of a long option is accepted, as
# getopt_long accepts it.
_acp_value_spec()
{
    local table=$1 opt=$2 line name found='' hits=0 fields
    while read -r line; do
        read -ra fields <<<"$line"
        for name in "${fields[@]}"; do
            [[ $name == -* ]] || break
            if [[ ${name%=} == "$opt" ]]; then
                found=$line hits=1
                break 2
            fi
            if [[ $opt == --?* && $name == "$opt"* ]]; then
                found=$line
                hits=$((hits + 1))
            fi
        done
    done <<<"$table"
    ((hits == 1)) || return 1
    read -ra fields <<<"$found"
    local takes_value='' values=()
    for name in "${fields[@]}"; do
        if [[ $name == -* ]]; then
            [[ $name == *= ]] && takes_value=1
        else
            values+=("$name")
        fi
    done
    [[ $takes_value ]] || return 1
    printf '%s\n' "${values[*]}"
}

# Prints every option name of table $1 as the user would type it: --name= for one with a value.
_acp_option_names()
{
    local line fields name
    while read -r line; do
        read -ra fields <<<"$line"
        for name in "${fields[@]}"; do
            [[ $name == -* ]] && printf '%s\n' "$name"
        done
    done <<<"$1"
}

# Splits $1, the command line up to the cursor, into arguments as the shell will (quotes and
# backslashes respected, left in place) and sets args; the last one is the argument under the
# cursor ("" after a space). Sets keep to how many bytes of that argument's unquoted text lie
# before the word readline replaces: up to its last word-break character or opening quote.
_acp_split()
{
    local line=$1 i c q='' arg='' text='' started=''
    args=()
    keep=0
    for ((i = 0; i < ${#line}; i++)); do
        c=${line:i:1}
        if [[ $q ]]; then
            if [[ $c == "$q" ]]; then
                q=''
            elif [[ $q == '"' && $c == \\ && $((i + 1)) -lt ${#line} ]]; then
                arg+=$c
                i=$((i + 1))
                c=${line:i:1}
                text+=$c
            else
                text+=$c
            fi
            arg+=$c
            continue
        fi
        case $c in
        [[:space:]])
            [[ $started ]] && args+=("$arg")
            arg='' text='' started='' keep=0
            continue
            ;;
        \\)
            arg+=$c
            i=$((i + 1))
            c=${line:i:1}
            text+=$c
            ;;
        [\"\'])
            q=$c
            keep=${#text}
            ;;
        *)
            text+=$c
            [[ $COMP_WORDBREAKS == *"$c"* ]] && keep=${#text}
            ;;
        esac
        arg+=$c
        started=1
    done
    args+=("$arg")
}

# The text of a shell word without its quotes and backslashes.
_acp_dequote()
{
    local s=$1 out='' i c q=''
    for ((i = 0; i < ${#s}; i++)); do
        c=${s:i:1}
        if [[ $q ]]; then
            if [[ $c == "$q" ]]; then
                q=''
                continue
            fi
            [[ $q == '"' && $c == \\ ]] && i=$((i + 1)) && c=${s:i:1}
        elif [[ $c == [\"\'] ]]; then
            q=$c
            continue
        elif [[ $c == \\ ]]; then
            i=$((i + 1))
            c=${s:i:1}
        fi
        out+=$c
    done
    printf '%s' "$out"
}

# Adds to COMPREPLY the candidates for the value of an option. $1 tool, $2 spec, $3 what is
# typed of the value, $4 what precedes it in the same argument ("--to=", or "" for `--to VALUE`).
_acp_complete_value()
{
    local tool=$1 spec=$2 value=$3 before=$4 word
    local -a candidates=()
    case $spec in
    @file)
        compopt -o filenames 2>/dev/null
        mapfile -t candidates < <(compgen -f -- "$value")
        ;;
    @code)
        mapfile -t candidates < <(compgen -W "list $("$tool" --explain=list </dev/null 2>/dev/null |
            while read -r word _; do printf '%s ' "$word"; done)" -- "$value")
        ;;
    @command)
        mapfile -t candidates < <(compgen -c -- "$value" | LC_ALL=C sort -u)
        ;;
    @address)
        if [[ $value == unix:* ]]; then
            compopt -o filenames 2>/dev/null
            mapfile -t candidates < <(compgen -f -- "${value#unix:}")
            before+=unix:
        else
            mapfile -t candidates < <(compgen -W "tcp: unix:" -- "$value")
            compopt -o nospace 2>/dev/null
        fi
        ;;
    '')
        return # a free value: nothing to offer, and no file names either
        ;;
    *)
        mapfile -t candidates < <(compgen -W "$spec" -- "$value")
        ;;
    esac
    for word in "${candidates[@]}"; do
        COMPREPLY+=("$before$word")
    done
}

# Completes the command line of tool $1, whose options table is $2; an operand with the function
# $3 (given what is typed of it, it adds to COMPREPLY), else as a file name.
_acp_complete()
{
    local tool=$1 table=$2 operand=${3-} keep spec arg i
    local -a args
    _acp_split "${COMP_LINE:0:COMP_POINT}"
    local cur prev
    cur=$(_acp_dequote "${args[${#args[@]} - 1]}")
    prev=$(_acp_dequote "${args[${#args[@]} - 2]-}")
    COMPREPLY=()

    local options_end=''
    for arg in "${args[@]:1:${#args[@]}-2}"; do
        [[ $arg == -- ]] && options_end=1
    done

    if [[ $options_end ]]; then
        _acp_complete_value "$tool" @file "$cur" '' # after a bare --, only file names
    elif [[ $prev == -* && $prev != --*=* ]] && spec=$(_acp_value_spec "$table" "$prev"); then
        _acp_complete_value "$tool" "$spec" "$cur" ''
    elif [[ $cur == --*=* ]]; then
        spec=$(_acp_value_spec "$table" "${cur%%=*}") &&
            _acp_complete_value "$tool" "$spec" "${cur#*=}" "${cur%%=*}="
    elif [[ $cur == -[!-]?* ]] && spec=$(_acp_value_spec "$table" "${cur:0:2}"); then
        _acp_complete_value "$tool" "$spec" "${cur:2}" "${cur:0:2}"
    elif [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_acp_option_names "$table")" -- "$cur")
        [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
    elif [[ $operand ]]; then
        "$operand" "$cur"
    else
        _acp_complete_value "$tool" @file "$cur" ''
    fi

    # Readline replaces only the word after the last word-break character or opening quote.
    if ((keep > 0)); then
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]:keep}
        done
    fi
}
