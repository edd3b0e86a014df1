#!/bin/sh
# Times `git reason sync` of two clones diverged by 100 records each on one
# task, and on 10 tasks, against `git fetch` + `git push` of the same refs
# in the same run; prints medians and ratios (target <= 3x).
# Run from anywhere in the module; arguments go to the program
# (-runs N, -records N, -tasks N).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/sync "$@"
