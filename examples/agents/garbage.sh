#!/bin/sh
# A broken agent for acp-replay's tests: it answers every line with a line that is not a message.
while read -r message; do
    echo "ok, got it"
done
