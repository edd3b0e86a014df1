#!/bin/sh
# The floors under `git reason log -n 5` and the listings of every task
# in a world bench/scale kept: the program's start (`git-reason version`,
# `git-reason --version`), discovery (`git rev-parse`, as git-reason
# runs it), listing the task refs with git (`git for-each-ref`) and
# reading packed-refs (`cat`), with `git-reason log -n 5` beside them, in
# RUNS interleaved rounds, each command run twice: under perf stat for
# its CPU (task-clock: the process and those it starts), then alone for
# its wall time (to the microsecond: /usr/bin/time's 10 ms steps cannot
# show these).
# Prints the medians (min-max) and the load average at the start and the
# end. Needs perf.
# Usage: bench/scale/floors.sh CLONE BIN [RUNS]
#   CLONE: e.g. DIR/w20000/clone after ./bench/scale/run.sh -keep DIR
#     -tasks 20000 -make (its refs are packed here first);
#   BIN: a git-reason binary; RUNS: rounds (default 15).
set -eu
clone=$1 bin=$2 runs=${3:-15}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$(dirname "$(dirname "$clone")")/home" GIT_CONFIG_NOSYSTEM=1
cd "$clone"
git pack-refs --all
"$bin" log -n 5 >/dev/null 2>&1 # settles the caches after packing
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# one NAME CMD...: one timed run of CMD, a line "NAME WALL-MS CPU-MS".
one() {
  name=$1; shift
  perf stat -x, -e task-clock -o "$work/one" -- "$@" >/dev/null 2>&1
  start=$(date +%s%N); "$@" >/dev/null 2>&1; end=$(date +%s%N)
  awk -F, -v n="$name" -v w="$(( (end - start) / 1000 ))" '$3 == "task-clock" { printf "%s %.3f %.3f\n", n, w / 1000, $1 }' "$work/one" >>"$work/times"
}
for r in $(seq "$runs"); do
  one version "$bin" version
  one --version "$bin" --version
  one rev-parse git rev-parse --path-format=absolute --git-dir --git-common-dir --show-toplevel
  one for-each-ref git for-each-ref refs/reasoning/tasks/
  one cat-packed-refs cat .git/packed-refs
  one log-n-5 "$bin" log -n 5
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  function med(list, n,   a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return sprintf("%.1f (%.1f-%.1f)", a[int((n + 1) / 2)], a[1], a[n])
  }
  { if (!($1 in wall)) order[++n] = $1; wall[$1] = wall[$1] " " $2; cpu[$1] = cpu[$1] " " $3 }
  END { for (i = 1; i <= n; i++) printf "%s: wall %s ms, CPU %s ms\n", order[i], med(wall[order[i]]), med(cpu[order[i]]) }' "$work/times"
