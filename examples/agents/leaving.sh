#!/bin/sh
# A broken agent for acp-replay's and acp-send's tests: it accepts the first task.assign as
# forager-07, then exits, leaving behind a process that holds its stdin and stdout open (and
# never ends by itself), so that its pipes never close. PIDFILE, if given, gets that process's id.
# Usage: leaving.sh [PIDFILE]
read -r message
id=$(printf '%s\n' "$message" | sed -n 's/^{"v":"1.1","id":"\([^"]*\)".*/\1/p')
echo '{"v":"1.1","id":"m-1","from":"forager-07","to":"queen","kind":"task.accept","ref":"'"$id"'","ts":1}'
sleep 3600 &
[ -z "${1-}" ] || echo $! >"$1"
exit 0
