#!/bin/sh
# The first and second git reason status of a clone whose git fetch
# brought every task (its .git/reason/ absent, as after git clone and a
# fetch of the tasks: the first command's catch-up verifies every task),
# as built from REV and from the work tree, ROUNDS rounds alternating:
# wall and CPU seconds (user + system, git's processes included), and the
# files each created or rewrote under .git/reason/: in verified.d/ (a
# file per task), in tasks/ (a file per task), and the others (among
# them verified.pack and tasks.pack, which a save of many tasks writes
# instead).
# CLONE is a world's clone, as `sh bench/scale/run.sh -keep DIR -make
# -tasks 3000` makes it (DIR/w3000/clone); each run is on a copy of it
# without .git/reason/.
# Usage: bench/scale/firststatus.sh CLONE [REV] [ROUNDS]   (REV: 0123f52,
# before a save of many tasks went into verified.pack, or da7a2f1, before
# a read of many tasks put their caches into tasks.pack; ROUNDS: 3)
# bench/scale/firstprofile.sh shows where the same first status's CPU goes.
set -eu
cd "$(dirname "$0")/../.."
. bench/twobuilds.sh
clone=$(cd "$1" && pwd) rev=${2:-0123f52} rounds=${3:-3}
scratch
twobuilds "$rev" ./cmd/git-reason
echo "tasks: $(git -C "$clone" for-each-ref refs/reasoning/tasks | wc -l); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %-7s %7s %7s %11s %7s %7s %6s\n' round build command 'wall s' 'CPU s' 'verified.d/' 'tasks/' others total
for r in $(seq "$rounds"); do
  for v in before after; do
    copy="$tmp/$v-$r"
    mkdir "$copy"
    (cd "$clone" && tar --exclude=./.git/reason -cf - .) | (cd "$copy" && tar -xf -)
    for c in first second; do
      touch "$tmp/mark"
      sleep 0.01
      (cd "$copy" && PATH="$tmp/$v:$PATH" /usr/bin/time -f '%e %U %S' -o "$tmp/time" git reason status >/dev/null 2>&1) || true
      find "$copy/.git/reason" -type f -newer "$tmp/mark" >"$tmp/files"
      printf '%-6s %-7s %-7s %7.2f %7.2f %11d %7d %7d %6d\n' "$r" "$v" "$c" "$(tail -n1 "$tmp/time" | cut -d' ' -f1)" \
        "$(tail -n1 "$tmp/time" | awk '{ print $2 + $3 }')" "$(grep -c /verified.d/ "$tmp/files" || true)" \
        "$(grep -c /tasks/ "$tmp/files" || true)" "$(grep -vc -e /verified.d/ -e /tasks/ "$tmp/files" || true)" "$(wc -l <"$tmp/files")"
    done
    rm -rf "$copy"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
