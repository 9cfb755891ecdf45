# bash completion for acp-validate(1)                                  -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_validate_options='
--protocol=         auto iacp fipa mcp
--from=             auto json fipa-acl
--now=
--stateless
--pass=             valid well-formed all
--partition=
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
--linger=
--wall-clock
--fipa-profile=     caxton standard
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
_acp_validate() { _acp_complete acp-validate "$_acp_validate_options"; }
complete -F _acp_validate acp-validate
