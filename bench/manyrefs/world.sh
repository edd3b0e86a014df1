#!/bin/sh
# What one `git reason pull` of a normal large remote costs, many tasks
# each at a head of its own (the remote of a world bench/scale/run.sh
# made, -keep DIR: DIR/w5000/remote.git, DIR/w20000/remote.git), as
# built from REV and from the work tree: CPU seconds (user + system,
# git's processes included), peak RSS and the tasks pull integrated.
# Each build pulls RUNS times into a fresh clone of its own, from a copy
# of REMOTE (never changed). It holds the cost of what the replays of one
# pull share (gitstore's heldHistories, record.Checked by blob) where no
# two tasks share a head: nothing to gain, so it must cost nothing.
# Usage: bench/manyrefs/world.sh REMOTE [REV] [RUNS]
#   REV: 7df7135 by default (before histories and blobs were held for the
#   run); RUNS: 2.
set -eu
cd "$(dirname "$0")/../.."
remote=$1 rev=${2:-7df7135} runs=${3:-2}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/...
cp -r "$remote" "$tmp/remote.git"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %3s %8s %12s %10s\n' build run 'CPU s' 'peak RSS MB' integrated
for i in $(seq "$runs"); do
  for v in before after; do
    rm -rf "$tmp/clone"
    git init -q "$tmp/clone"
    git -C "$tmp/clone" remote add origin "$tmp/remote.git"
    (cd "$tmp/clone" && PATH="$tmp/$v:$PATH" /usr/bin/time -f '%U %S %M' -o "$tmp/time" git reason pull >"$tmp/out" 2>&1) ||
      { tail -n 5 "$tmp/out"; exit 1; }
    printf '%-7s %3d %8.1f %12d %10d\n' "$v" "$i" "$(tail -n1 "$tmp/time" | awk '{ print $1 + $2 }')" \
      "$(tail -n1 "$tmp/time" | awk '{ print int($3 / 1024) }')" \
      "$(git -C "$tmp/clone" for-each-ref refs/reasoning/tasks | wc -l)"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
