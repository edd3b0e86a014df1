#!/bin/sh
# Measures git reason at 5,000 and 20,000 tasks (two records each) against
# plain git on the same refs: no-op sync, pull of one moved task, assess
# against 50 tasks, log -n 5, status, handover, verify and completion.
# Run from anywhere in the module; arguments go to the program
# (-runs N, -tasks 5000,20000, -small 50, -keep DIR).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/scale "$@"
