#!/bin/sh
# The first pull of a new clone (git init, git remote add, git reason pull)
# and the first status after it, as built from REV and from the work tree,
# ROUNDS rounds alternating: CPU seconds (user + system, git's processes
# included), peak RSS, and the files each wrote under .git/reason/.
# REMOTE is a world's bare remote, as `sh bench/scale/run.sh -keep DIR
# -tasks 5000` makes it (DIR/w5000/remote.git).
# Usage: bench/scale/newclone.sh REMOTE [REV] [ROUNDS]   (REV: 7c748e5,
# before a pull seeded each task's cache; ROUNDS: 3)
set -eu
cd "$(dirname "$0")/../.."
remote=$(cd "$1" && pwd) rev=${2:-7c748e5} rounds=${3:-3}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %-7s %8s %12s %8s\n' round build command 'CPU s' 'peak RSS MB' files
for r in $(seq "$rounds"); do
  for v in before after; do
    clone="$tmp/$v-$r"
    git init -q "$clone"
    git -C "$clone" remote add origin "$remote"
    for c in pull status; do
      touch "$tmp/mark"
      sleep 0.01
      (cd "$clone" && PATH="$tmp/$v:$PATH" /usr/bin/time -f '%U %S %M' -o "$tmp/time" git reason "$c" >/dev/null 2>&1) || true
      files=$(find "$clone/.git/reason" -type f -newer "$tmp/mark" | wc -l)
      printf '%-6s %-7s %-7s %8.2f %12d %8d\n' "$r" "$v" "$c" "$(tail -n1 "$tmp/time" | awk '{ print $1 + $2 }')" \
        "$(tail -n1 "$tmp/time" | awk '{ print int($3 / 1024) }')" "$files"
    done
    rm -rf "$clone"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
