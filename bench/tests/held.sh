#!/bin/sh
# How long a package's parallel tests were held back by its serial ones:
# go test runs the top-level tests in order and releases the tests that
# called t.Parallel only after the last serial one has returned. Reads a
# go test -json log (bench/tests/run.sh OUT=DIR keeps them: DIR/short-base.json,
# DIR/short-head.json) and prints, for PKG (default
# git-reason/cmd/git-reason), the seconds from its first test's start to
# the first parallel test's release ("cont"), and to its last event.
# Usage: bench/tests/held.sh LOG.json [PKG]
set -eu
log=$1
pkg=${2:-git-reason/cmd/git-reason}
secs() { date -u -d "$1" +%s.%N; }
lines=$(grep -F "\"Package\":\"$pkg\"" "$log")
first=$(printf '%s\n' "$lines" | grep -m1 '"Action":"run"' | sed 's/^{"Time":"\([^"]*\)".*/\1/')
cont=$(printf '%s\n' "$lines" | grep -m1 '"Action":"cont"' | sed 's/^{"Time":"\([^"]*\)".*/\1/')
last=$(printf '%s\n' "$lines" | tail -n 1 | sed 's/^{"Time":"\([^"]*\)".*/\1/')
[ -n "$first" ] && [ -n "$cont" ] || { echo "held.sh: no run or cont event of $pkg in $log" >&2; exit 1; }
awk -v a="$(secs "$first")" -v b="$(secs "$cont")" -v c="$(secs "$last")" -v p="$pkg" \
	'BEGIN { printf "%s: parallel tests released %.1f s after the first test started; last event at %.1f s\n", p, b - a, c - a }'
