#!/bin/sh
# Times whole-process `git reason verify` of one task of 2,000 records with
# 100 merges (target: under 1 s). Run from anywhere in the module;
# arguments go to the program (-records N, -merges N, -runs N, -dir DIR to
# keep and reuse the generated repository, -baseline-bin EXE to time
# another build of git-reason in the same rounds: before and after, -cold
# to remove what git reason keeps before each run, so that each replays
# every record).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/verify "$@"
