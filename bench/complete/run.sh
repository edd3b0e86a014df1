#!/bin/sh
# Times whole-process `git reason __complete` (what a TAB runs) in a
# repository of 300 tasks of 40 records each (target: under 100 ms).
# Run from anywhere in the module; arguments go to the program (-tasks N,
# -records N, -runs N).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/complete "$@"
