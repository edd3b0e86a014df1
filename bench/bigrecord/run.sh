#!/bin/sh
# A record of MIB MiB (its subject a string of that many "a"s), which
# compresses to a few KiB, as built from REV and from the
# work tree: the exit status, wall and CPU seconds (user + system, git's
# processes included) and peak RSS of `status P`, `status` and `verify`.
# A second repository writes an honest task H and, with git plumbing
# alone, task P whose one record is H's assessment with that member; the
# measured repository gets it with plain git fetch. Each command is cut
# at CAP seconds. fetched_unreadable.txtar (task Padded) holds that such
# a record is refused unread.
# Usage: bench/bigrecord/run.sh [REV] [MIB] [CAP]
#   REV: 29ecc52^ (before object sizes were read before the objects);
#   MIB: 20; CAP: 120.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-29ecc52^} mib=${2:-20} cap=${3:-120}
. bench/twobuilds.sh
. bench/forge.sh
scratch
twobuilds "$rev" ./cmd/git-reason
attacker
# H's subject becomes the padding (a field status shows); forge adds a
# member of no weight.
head -c "$((mib * 1048576))" /dev/zero | tr '\0' a >"$tmp/pad"
awk -v pf="$tmp/pad" 'BEGIN { getline pad <pf } /"subject": / { sub(/"Session store"/, "\"" pad "\"") } { print }' \
  "$tmp/honest.json" >"$tmp/padded.json"
mv "$tmp/padded.json" "$tmp/honest.json"
echo 0 >"$tmp/x"
forge P x "$tmp/x"
echo "the record: $(wc -c <"$tmp/forged.json") bytes; the attacker's objects packed: $(git -C "$tmp/attacker" pack-objects --all --stdout </dev/null 2>/dev/null | wc -c) bytes"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-9s %5s %8s %8s %8s\n' build command exit 'wall s' 'CPU s' 'RSS MB'
for b in before after; do
  repo="$tmp/$b"
  git init -q "$repo"
  git -C "$repo" fetch -q "$tmp/attacker" '+refs/reasoning/tasks/*:refs/reasoning/tasks/*'
  for c in 'status P' status verify; do
    # shellcheck disable=SC2086 # $c is a command and its arguments
    timed "$b" "$repo" $c
    printf '%-7s %-9s %5s %8.2f %8.2f %8d\n' "$b" "$c" "$code" "$wall" "$cpu" "$rss"
  done
  rm -rf "$repo"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
