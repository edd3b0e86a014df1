#!/bin/sh
# The next walker's cost (issue 26 §2): TestNextWalkRandom with N seeded
# walks (default 300, as go test -short runs them), run RUNS times
# (default 3), each in a fresh test binary, with -test.short. Prints, for
# each run, the test's own figure (wall and CPU a walk, this process and
# its children, measured inside the test) and /usr/bin/time's for the
# whole binary (which includes building git-reason in TestMain when its
# build is not cached), with the load average before and after: the
# machine is shared, the CPU time is the figure others' load changes
# least. GIT_REASON_WALK_HERE=1 keeps the walks in the binary it starts
# (go test runs them in a test binary of their own, beside the package's
# parallel tests: cmd/git-reason's walkAside), so that the figures and a
# -test.cpuprofile are the walks' own.
# With BASE (a revision), its test binary is built from a worktree of its
# own and run in the same rounds, before this tree's in each: before and
# after from one run, then the median CPU a walk of each.
# Usage: bench/walker/run.sh [N] [RUNS] [BASE]
set -eu
cd "$(dirname "$0")/../.."
n=${1:-300}
runs=${2:-3}
base=${3:-}
tmp=$(mktemp -d)
top=$(pwd)
cleanup() {
	if [ -d "$tmp/base-src" ]; then git worktree remove --force "$tmp/base-src"; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
go test -c -o "$tmp/new.test" ./cmd/git-reason
trees="new=$top"
if [ -n "$base" ]; then
	git worktree add --detach "$tmp/base-src" "$base" >/dev/null 2>&1
	(cd "$tmp/base-src" && go test -c -o "$tmp/base.test" ./cmd/git-reason)
	trees="base=$tmp/base-src $trees"
fi
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	for t in $trees; do
		name=${t%%=*} src=${t#*=}
		echo "run $i, $name, load $(cut -d' ' -f1-3 /proc/loadavg)"
		(cd "$src/cmd/git-reason" && GIT_REASON_WALK_HERE=1 GIT_REASON_WALKS=$n /usr/bin/time -f "  whole binary: %e s wall, %U s user, %S s system" \
			"$tmp/$name.test" -test.run 'TestNextWalkRandom$' -test.count=1 -test.short -test.v 2>&1) |
			grep -E 'walks:|whole binary|^--- |FAIL' | sed 's/^ *next_walk_random_test.go:[0-9]*: /  /' | tee -a "$tmp/$name.out"
	done
	echo "  load after $(cut -d' ' -f1-3 /proc/loadavg)"
done
for t in $trees; do
	name=${t%%=*}
	sed -n 's/.* wall, \([0-9.]*\) ms CPU .*/\1/p' "$tmp/$name.out" | sort -n |
		awk -v name="$name" '{v[NR] = $1} END {if (NR) printf "%s: median %.1f ms CPU a walk of %d runs (%s", name, v[int((NR + 1) / 2)], NR, v[1]; for (i = 2; i <= NR; i++) printf " / %s", v[i]; if (NR) print ")"}'
done
