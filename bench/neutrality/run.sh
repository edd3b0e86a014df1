#!/bin/sh
# Times `git reason check neutrality` against `git grep -i -E` of the
# same names over a generated 10,000-file repository. Run from anywhere in
# the module; arguments go to the program (-files N, -runs N, -nearmiss, -staged, -keep).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/neutrality "$@"
