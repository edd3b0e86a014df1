#!/bin/sh
# What one `git reason pull` costs of a remote of REFS task refs that all
# name one commit whose records/ tree holds ENTRIES well-named entries
# sharing one blob that is no record (a push of about 100 KiB for 2,000
# refs and 1,500 entries), as built from REV and from the work tree: CPU
# seconds (user + system, git's processes included), peak RSS and the
# tasks pull quarantined. Each build pulls into a fresh clone.
# With KIND records, the entries are instead ENTRIES distinct records
# that decode, each a well-formed assessment of another task U, so that
# the name takes part in the replay (record of task U stored under task
# K1, ...): the replay of one ref cannot stand for the others'.
# With HEADS distinct, each ref names a commit of its own on the one
# tree (a message of its own), so that no two refs share a head: what
# one pull keeps of the histories it replays must not grow with them
# (bench/manyrefs/run.sh 7df7135 20 200000 blank distinct).
# With HEADS pairs, refs K<i> and K<i+REFS/2> name one commit of their
# own on the one tree, so that each head is named by two refs far apart
# in name order: what one pull keeps of a head two tasks name must be let
# go once both are replayed (bench/manyrefs/run.sh d86002d 20 100000
# blank pairs).
# With KIND invalid, each ref names a commit of its own whose tree holds
# ENTRIES blobs of its own, each a few bytes that are no record
# ({"n":"K1-1"}, ...), so that no two refs share a head or a blob: what
# one pull keeps of the blobs it read must not grow with the refs
# (bench/manyrefs/run.sh 7df7135 40 10000 invalid).
# Usage: bench/manyrefs/run.sh [REV] [REFS] [ENTRIES] [KIND] [HEADS]
#   REV: c3d20d9 by default (before a replay was shared by the refs
#   naming one head); REFS: 2000; ENTRIES: 1500; KIND: blank (entries
#   that are no record, the default), records or invalid; HEADS: one
#   (the default), distinct or pairs.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-c3d20d9} refs=${2:-2000} entries=${3:-1500} kind=${4:-blank} heads=${5:-one}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q --bare "$tmp/remote.git"
git init -q "$tmp/a"
cd "$tmp/a"
if [ "$kind" = invalid ]; then
  awk -v refs="$refs" -v n="$entries" 'BEGIN { for (i = 1; i <= refs; i++) {
    msg = sprintf("assessment: K%d\n", i)
    printf "commit refs/reasoning/tasks/K%d\ncommitter Bench <bench@example.invalid> 1767225600 +0000\ndata %d\n%s", i, length(msg), msg
    for (j = 1; j <= n; j++) {
      b = sprintf("{\"n\":\"K%d-%d\"}\n", i, j)
      printf "M 100644 inline records/%010d-assessment-01J%023d.json\ndata %d\n%s", j, j, length(b), b
    }
    printf "\n" } }' | git fast-import --quiet
  heads=made
elif [ "$kind" = records ]; then
  mkdir "$tmp/recs"
  awk -v n="$entries" -v d="$tmp/recs" 'BEGIN { for (i = 1; i <= n; i++) {
    id = sprintf("01J%023d", i); f = sprintf("%s/%010d-assessment-%s.json", d, i, id)
    printf "{\"id\":\"%s\",\"kind\":\"assessment\",\"task\":\"U\",\"created\":\"2026-01-01T00:00:00Z\",\"actor\":\"Bench <bench@example.invalid>\",\"origin\":\"01j00000000000000000000000\",\"clock\":%d,\"body\":{\"subject\":\"Subject %d\",\"question\":\"Question %d?\",\"materiality\":\"trivial\",\"reversibility\":\"reversible\"},\"derived\":{\"surface\":\"cli\",\"subject_key\":\"subject %d\"}}\n", id, i, i, i, i > f
    close(f) } }'
  ls "$tmp/recs" >"$tmp/names"
  records=$(sed "s|^|$tmp/recs/|" "$tmp/names" | git hash-object -w --stdin-paths | paste - "$tmp/names" | sed 's/^/100644 blob /' | git mktree)
else
  blob=$(echo '{}' | git hash-object -w --stdin)
  records=$(awk -v b="$blob" -v n="$entries" 'BEGIN { for (i = 1; i <= n; i++) printf "100644 blob %s\t%010d-assessment-01J%023d.json\n", b, i, i }' | git mktree)
fi
[ "$heads" = made ] || root=$(printf '040000 tree %s\trecords\n' "$records" | git mktree)
if [ "$heads" = made ]; then
  : # fast-import made the refs
elif [ "$heads" = distinct ]; then
  for i in $(seq "$refs"); do
    printf 'create refs/reasoning/tasks/K%d %s\n' "$i" "$(printf 'assessment: K%d\n' "$i" | git commit-tree "$root")"
  done | git update-ref --stdin
elif [ "$heads" = pairs ]; then
  half=$((refs / 2))
  for i in $(seq "$half"); do
    c=$(printf 'assessment: K%d\n' "$i" | git commit-tree "$root")
    printf 'create refs/reasoning/tasks/K%d %s\ncreate refs/reasoning/tasks/K%d %s\n' "$i" "$c" "$((i + half))" "$c"
  done | git update-ref --stdin
else
  commit=$(printf 'assessment: shared\n' | git commit-tree "$root")
  awk -v c="$commit" -v n="$refs" 'BEGIN { for (i = 1; i <= n; i++) printf "create refs/reasoning/tasks/K%d %s\n", i, c }' | git update-ref --stdin
fi
git push -q "$tmp/remote.git" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %8s %12s %12s\n' build 'CPU s' 'peak RSS MB' quarantined
for v in before after; do
  git init -q "$tmp/$v-clone"
  cd "$tmp/$v-clone"
  git remote add origin "$tmp/remote.git"
  PATH="$tmp/$v:$PATH" /usr/bin/time -f '%U %S %M' -o "$tmp/time" git reason pull >"$tmp/out" 2>&1 || true
  printf '%-7s %8.1f %12d %12d\n' "$v" "$(tail -n1 "$tmp/time" | awk '{ print $1 + $2 }')" \
    "$(tail -n1 "$tmp/time" | awk '{ print int($3 / 1024) }')" "$(grep -c ': quarantined: ' "$tmp/out" || true)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
