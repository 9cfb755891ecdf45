#!/bin/sh
# A broken agent for acp-replay's tests: it never reads its input, never answers and never ends
# by itself.
exec sleep 3600
