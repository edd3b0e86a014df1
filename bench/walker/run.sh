#!/bin/sh
# The next walker's cost (issue 26 §2): TestNextWalkRandom with N seeded
# walks (default 300, as go test -short runs them), run RUNS times
# (default 3), each in a fresh test binary, with -test.short. Prints, for
# each run, the test's own figure (wall and CPU a walk, this process and
# its children, measured inside the test) and /usr/bin/time's for the
# whole binary (which includes building git-reason in TestMain when its
# build is not cached), with the load average before and after: the
# machine is shared, the CPU time is the figure others' load changes
# least.
# Usage: bench/walker/run.sh [N] [RUNS]
set -eu
cd "$(dirname "$0")/../.."
n=${1:-300}
runs=${2:-3}
bin=$(mktemp -d)/walker.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
go test -c -o "$bin" ./cmd/git-reason
cd cmd/git-reason
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	echo "run $i, load $(cut -d' ' -f1-3 /proc/loadavg)"
	GIT_REASON_WALKS=$n /usr/bin/time -f "  whole binary: %e s wall, %U s user, %S s system" \
		"$bin" -test.run 'TestNextWalkRandom$' -test.count=1 -test.short -test.v 2>&1 |
		grep -E 'walks:|whole binary|^--- |FAIL' | sed 's/^ *next_walk_random_test.go:[0-9]*: /  /'
	echo "  load after $(cut -d' ' -f1-3 /proc/loadavg)"
done
