#!/bin/sh
# What `git reason status` (every task), `git reason handover` and
# `git reason tasks` (the commands CMDS names, default all three) cost on
# a world of many tasks with nothing moved, this tree's build against a
# base revision's in the same interleaved rounds: each build on its own
# copy of the world (a cache written by one release holds nothing for
# another), warmed by two runs of each command, then RUNS rounds of
# status and handover, base then new, each process timed by
# /usr/bin/time (wall, and user + system of it and the git processes it
# waits for). Prints the medians (min-max) and the CPU ratio new/base,
# and the load average at the start and the end.
# Usage: [CMDS='status tasks'] [ARGS=--json] [FIRST=1] bench/listall/run.sh WORLD BASE [RUNS]
#   ARGS: words given to every command (--json: what their JSON costs);
#   FIRST=1: each timed run starts without the memo of --json outputs
#     seen valid (.git/reason/outputs.d, removed from both clones before
#     it): what an output costs the first time it is checked whole;
#   WORLD: a clone bench/scale made and kept, e.g. after
#     ./bench/scale/run.sh -keep DIR -tasks 20000 -make
#     the clone DIR/w20000/clone (its refs are packed here first);
#   BASE: a revision to build and time beside this tree (e.g. f0c11fb);
#   RUNS: rounds (default 9).
set -eu
cd "$(dirname "$0")/../.."
world=$1 base=$2 runs=${3:-9} cmds=${CMDS:-status handover tasks} args=${ARGS:-}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/base-src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
tags=urfave_cli_no_docs,netgo
mkdir -p "$work/new" "$work/base"
nice -n 10 go build -tags "$tags" -o "$work/new/" ./cmd/...
git worktree add --detach "$work/base-src" "$base" >/dev/null 2>&1
(cd "$work/base-src" && nice -n 10 go build -tags "$tags" -o "$work/base/" ./cmd/...)
export HOME="$(dirname "$(dirname "$world")")/home" GIT_CONFIG_NOSYSTEM=1
git -C "$world" pack-refs --all
for b in base new; do
  cp -a "$world" "$work/$b-clone"
  for i in 1 2; do
    for cmd in $cmds; do
      (cd "$work/$b-clone" && "$work/$b/git-reason" $cmd $args >/dev/null 2>&1)
    done
  done
done
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$runs"); do
  for cmd in $cmds; do
    for b in base new; do
      if [ -n "${FIRST:-}" ]; then rm -rf "$work/$b-clone/.git/reason/outputs.d"; fi
      (cd "$work/$b-clone" && /usr/bin/time -f "$cmd $b %e %U %S" -a -o "$work/times" "$work/$b/git-reason" $cmd $args >/dev/null 2>&1)
    done
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
# Output of both builds must be the same.
for cmd in $cmds; do
  (cd "$work/base-clone" && "$work/base/git-reason" $cmd $args >"$work/$cmd.base")
  (cd "$work/new-clone" && "$work/new/git-reason" $cmd $args >"$work/$cmd.new")
  # (handover names the time --since counts from, to the second: a line
  # of its own, in markdown and in JSON)
  # (grep selects nothing of verify's output, which goes to stderr)
  grep -v -e "^## Settled since" -e '^  "since": ' "$work/$cmd.base" >"$work/$cmd.base.cmp" || true
  grep -v -e "^## Settled since" -e '^  "since": ' "$work/$cmd.new" >"$work/$cmd.new.cmp" || true
  cmp -s "$work/$cmd.base.cmp" "$work/$cmd.new.cmp" || echo "$cmd: the two builds print different output" >&2
done
awk -v cmds="$cmds" '
  function med(list, n,   a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return sprintf("%.0f (%.0f-%.0f)", a[int((n + 1) / 2)], a[1], a[n])
  }
  function mid(list, n,   a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((n + 1) / 2)]
  }
  { wall[$1 " " $2] = wall[$1 " " $2] " " $3 * 1000; cpu[$1 " " $2] = cpu[$1 " " $2] " " ($4 + $5) * 1000 }
  END {
    nc = split(cmds, names, " ")
    for (c = 1; c <= nc; c++) {
      k = names[c]
      printf "%s: base wall %s ms, CPU %s ms; new wall %s ms, CPU %s ms; CPU new/base %.2fx\n", k,
        med(wall[k " base"]), med(cpu[k " base"]), med(wall[k " new"]), med(cpu[k " new"]),
        mid(cpu[k " new"]) / mid(cpu[k " base"])
    }
  }' "$work/times"
