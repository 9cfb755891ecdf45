# bash completion for acp-trace(1)                                     -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_trace_options='
--format=           summary stats report html mermaid plantuml svg text
--follow=
--by-agent
--shard=
--partition=
--span-secret=      @file
--merge-stats
--merge
--hide=
--max-arrows=
--no-times
--page-size=
--width=
--now=
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
_acp_trace() { _acp_complete acp-trace "$_acp_trace_options"; }
complete -F _acp_trace acp-trace
