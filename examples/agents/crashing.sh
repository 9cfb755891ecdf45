#!/bin/sh
# A broken agent for acp-replay's tests: it reads one message, then dies of a segmentation fault
# without answering.
read -r message
kill -SEGV $$
