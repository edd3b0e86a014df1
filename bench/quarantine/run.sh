#!/bin/sh
# How large .git/reason/quarantine.json grows when a stranger's remote
# holds REFS hostile task refs (each a commit of its own whose records/
# tree holds one entry that is no record) and, before each of ROUNDS
# pulls, replaces them by REFS others under new names (round 1: A1…,
# round 2: B1…, …): the names the remote dropped are pruned from the
# tracking refs, and their quarantines must go with them, so the file
# holds one round's entries, not all rounds'. Then the remote deletes
# every task and a last pull runs. Each build (REV's and the work
# tree's) pulls into a fresh clone of its own; the sizes are bytes.
# Usage: bench/quarantine/run.sh [REV] [REFS] [ROUNDS]
#   REV: 3138c75 by default (before quarantines of dropped tasks were
#   forgotten); REFS: 2000; ROUNDS: 3.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-3138c75} refs=${2:-2000} rounds=${3:-3}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q --bare "$tmp/remote.git"
git init -q "$tmp/src"
size() { wc -c <"$1/.git/reason/quarantine.json" 2>/dev/null || echo 0; }
for v in before after; do
  git init -q "$tmp/$v-clone"
  git -C "$tmp/$v-clone" remote add origin "$tmp/remote.git"
done
printf '%-6s %8s %14s %14s\n' round refs 'before bytes' 'after bytes'
for r in $(seq "$rounds") last; do
  prefix=$(printf '%s' "$r" | tr '123456789' 'ABCDEFGHI')
  (
    cd "$tmp/src"
    git for-each-ref --format='delete %(refname)' refs/reasoning/tasks/ | git update-ref --stdin
    if [ "$r" != last ]; then
      awk -v p="$prefix" -v n="$refs" 'BEGIN { for (i = 1; i <= n; i++) {
        msg = sprintf("assessment: %s%d\n", p, i); b = sprintf("{\"n\":\"%s%d\"}\n", p, i)
        printf "commit refs/reasoning/tasks/%s%d\ncommitter Bench <bench@example.invalid> 1767225600 +0000\ndata %d\n%s", p, i, length(msg), msg
        printf "M 100644 inline records/0000000001-assessment-01J%023d.json\ndata %d\n%s\n", i, length(b), b } }' | git fast-import --quiet
    fi
    git push -q --prune "$tmp/remote.git" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
  )
  n=$(git --git-dir="$tmp/remote.git" for-each-ref refs/reasoning/tasks/ | wc -l)
  for v in before after; do
    (cd "$tmp/$v-clone" && PATH="$tmp/$v:$PATH" git reason pull >/dev/null 2>&1 || true)
  done
  printf '%-6s %8d %14d %14d\n' "$r" "$n" "$(size "$tmp/before-clone")" "$(size "$tmp/after-clone")"
done
