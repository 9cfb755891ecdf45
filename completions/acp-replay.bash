# bash completion for acp-replay(1)                                    -*- shell-script -*-
# One line per option, in the order of --help; the format is explained in acp-tools.bash.
[[ $(type -t _acp_complete) == function ]] || . "$(dirname "${BASH_SOURCE[0]}")/acp-tools.bash"
_acp_replay_options='
--speed=
--topspeed
--rate=
--burst
--loop=
--limit=
--duration=
--max-gap=
--start=
--rewrite-ts
--rewrite-ids
--connect=          @address
--exec=             @command
--all
--as=
--timed
--reply-timeout=
--compare=
--io-timeout=
--grace=
--serve=            server
--no-progress
-q --quiet
--strict
--max-errors=
--now=
--seed=
-o --output=        @file
--rejects=          @file
--diagnostics=      text json
--color=            auto always never
--stats
--max-line-bytes=
--explain=          @code
-h --help
--version
'
_acp_replay() { _acp_complete acp-replay "$_acp_replay_options"; }
complete -F _acp_replay acp-replay
