#!/bin/sh
# What reading every task costs when tasks reuse other tasks'
# conclusions (status checks the reuses of a task's latest assessment
# against the reused tasks' refs now), as built from REV and from the
# work tree, on copies of one repository: PAIRS tasks H-i, each
# concluded, and PAIRS tasks R-i whose assessment reuses H-i's
# conclusion. Each build warms its own copy's caches first (untimed);
# then ROUNDS rounds, the builds alternating, time `status --json` (every
# task's status), `status` (the table) and `status R-1` warm, and print
# the medians of wall and CPU (user + system of git reason and its git
# processes, perf stat's task-clock) and each build's files opened under .git/reason/ by one
# warm run of each (strace).
# Usage: bench/reuse/run.sh [PAIRS] [ROUNDS] [REV]   (200, 11, bc5e482)
set -eu
cd "$(dirname "$0")/../.."
pairs=${1:-200} rounds=${2:-11} rev=${3:-bc5e482}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q "$tmp/repo"
cd "$tmp/repo"
git commit -q --allow-empty -m start
gr="$tmp/after/git-reason"
echo "# generating $pairs pairs"
i=1
while [ "$i" -le "$pairs" ]; do
  "$gr" assess "H-$i" --subject "cache $i" --question 'How large?' --materiality material --reversibility costly --evidence 'note::load test' >/dev/null
  "$gr" plan "H-$i" >/dev/null
  "$gr" conclude "H-$i" --decision "$i MiB" --local-review 1=yes --local-review 2=yes --local-review 3=yes --local-review 4=yes >/dev/null
  "$gr" assess "R-$i" --subject "Cache $i" --question 'Same for the EU shard?' --materiality minor --reversibility reversible >/dev/null
  i=$((i + 1))
done
"$gr" status R-1 | grep -q 'reuses:' || { echo "reuse: R-1 reuses nothing" >&2; exit 1; }
cd "$tmp"
for b in before after; do
  cp -r repo "repo-$b"
  rm -rf "repo-$b/.git/reason"
  (cd "repo-$b" && "$tmp/$b/git-reason" status --json >/dev/null && "$tmp/$b/git-reason" status >/dev/null && "$tmp/$b/git-reason" status R-1 >/dev/null)
done
# one BUILD CASE ARGS...: one timed run, "wall cpu" appended to $tmp/BUILD.CASE
one() {
  b=$1 c=$2
  shift 2
  t0=$(date +%s%N)
  (cd "$tmp/repo-$b" && perf stat -x, -e task-clock -o "$tmp/t" "$tmp/$b/git-reason" "$@" >/dev/null)
  t1=$(date +%s%N)
  awk -F, -v w=$(((t1 - t0) / 1000)) '$3 == "task-clock" { printf "%.4f %.4f\n", w / 1e6, $1 / 1e3 }' "$tmp/t" >>"$tmp/$b.$c"
}
r=0
echo "# $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
while [ "$r" -lt "$rounds" ]; do
  for b in before after; do
    one "$b" json status --json
    one "$b" table status
    one "$b" one status R-1
  done
  r=$((r + 1))
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg)"
med() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-22s %12s %12s %12s %12s %8s %8s\n' case "wall before" "wall after" "cpu before" "cpu after" "files b" "files a"
for c in json table one; do
  wb=$(cut -d' ' -f1 "$tmp/before.$c" | med) wa=$(cut -d' ' -f1 "$tmp/after.$c" | med)
  cb=$(cut -d' ' -f2 "$tmp/before.$c" | med) ca=$(cut -d' ' -f2 "$tmp/after.$c" | med)
  case $c in json) args='status --json' ;; table) args=status ;; one) args='status R-1' ;; esac
  for b in before after; do
    # shellcheck disable=SC2086
    (cd "$tmp/repo-$b" && strace -f -qq -e trace=openat -o "$tmp/s.$b" "$tmp/$b/git-reason" $args >/dev/null)
  done
  fb=$(grep -c '\.git/reason/' "$tmp/s.before" || true) fa=$(grep -c '\.git/reason/' "$tmp/s.after" || true)
  printf '%-22s %10.1fms %10.1fms %10.1fms %10.1fms %8s %8s\n' "$args" "$(echo "$wb * 1000" | bc)" "$(echo "$wa * 1000" | bc)" "$(echo "$cb * 1000" | bc)" "$(echo "$ca * 1000" | bc)" "$fb" "$fa"
done
