#!/bin/sh
# What reading one stored record strictly costs (parse, envelope, body and
# derived validated against their schemas, decode: what replay pays per
# record; record.BenchmarkReadStored) and validation alone
# (record.BenchmarkCheckRecord), as built from REV and from the work tree,
# interleaved ROUNDS times: before and after from one run. The benchmarks of
# the work tree are copied into REV's tree, so REV need not have them.
# Prints each round's ns/op, B/op and allocs/op, the CPU seconds of each
# round's process (ITER operations plus set-up: on a loaded machine the
# wall time per op says little), then the medians.
# Usage: bench/records/run.sh [REV] [ROUNDS] [ITER]
#   REV: 80cb5ed by default (main before jsonschema/v5 validated in
#   production); ROUNDS: 5; ITER: 20000.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-80cb5ed} rounds=${2:-5} iter=${3:-20000}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/wt" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/wt" "$rev" >/dev/null 2>&1
cp record/bench_test.go "$tmp/wt/record/"
(cd "$tmp/wt" && go test -c -o "$tmp/before.test" ./record)
go test -c -o "$tmp/after.test" ./record
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$rounds" ]; do
  for v in before after; do
    /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$tmp/$v.test" -test.run '^$' \
      -test.bench 'ReadStored|CheckRecord' -test.benchtime "${iter}x" -test.benchmem |
      awk -v v="$v" '/^Benchmark/ { print v, $1, $3, $5, $7 }' | tee -a "$tmp/runs"
    echo "$v cpu $(awk '{ print $1 + $2 }' "$tmp/cpu")" | tee -a "$tmp/runs"
  done
  i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "medians (build, benchmark, ns/op, B/op, allocs/op; cpu: seconds per round):"
for v in before after; do
  for b in BenchmarkReadStored BenchmarkCheckRecord cpu; do
    grep "^$v $b[- ]" "$tmp/runs" | sort -k3 -n | awk -v n="$rounds" '
      { a[NR] = $0 } END { if (NR) print a[int((NR + 1) / 2)] }'
  done
done
