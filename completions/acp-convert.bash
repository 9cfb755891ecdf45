# bash completion for acp-convert(1)                                   -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_convert_options='
--from=             auto iacp fipa fipa-acl jsonrpc tap mcpsnoop
--to=               iacp fipa fipa-acl jsonrpc tap
--spelling=         snake kebab upper
--idle-timeout=
--max-open=
-q --quiet
--strict
--max-errors=
--fipa-profile=     caxton standard
--now=
--seed=
-j --jobs=
-o --output=        @file
--rejects=          @file
--diagnostics=      text json
--color=            auto always never
--stats
--no-progress
--max-line-bytes=
--explain=          @code
-h --help
--version
'
_acp_convert() { _acp_complete acp-convert "$_acp_convert_options"; }
complete -F _acp_convert acp-convert
