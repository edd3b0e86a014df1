#!/bin/sh
# A fetched chain of COMMITS commits, each a records/ tree of ENTRIES
# well-named entries sharing one blob that is no record (a blob of its
# own each commit, so each commit changes every entry; the byte limits
# see COMMITS tiny blobs), as built from REV and from the work tree: the
# exit status, wall and CPU seconds (user + system, git's processes
# included) and peak RSS of `pull` of a remote holding it into a new
# repository and the size of the .git/reason/quarantine.json it leaves,
# and, in another, the task fetched by plain git past pull, of
# `verify --json W`. Each command is cut at CAP seconds.
# ENTRIES 0 makes instead W's one honest record and COMMITS commits that
# change nothing (one git fast-import).
# pull_findings_bounded.txtar, pull_entries_bounded.txtar and
# pull_commits_bounded.txtar hold the findings, the entries and the
# commits to their bounds.
# Usage: bench/wide/run.sh [REV] [COMMITS] [ENTRIES] [CAP]
#   REV: b01c2d2^ (before a replay listed at most 1,000 findings; 897ba33^:
#   findings bounded, not yet the entries a history's commits change;
#   e090904^: not yet its commits, with ENTRIES 0 and COMMITS 300000);
#   COMMITS: 6; ENTRIES: 200000; CAP: 600.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-b01c2d2^} commits=${2:-6} entries=${3:-200000} cap=${4:-600}
. bench/twobuilds.sh
. bench/forge.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q --bare "$tmp/remote.git"
cd "$tmp/remote.git"
if [ "$entries" = 0 ]; then
  git init -q "$tmp/honest"
  (cd "$tmp/honest" && PATH="$tmp/after:$PATH" git reason assess W --subject 'Session store' \
    --question 'Which store?' --materiality minor --reversibility reversible >/dev/null)
  git fetch -q "$tmp/honest" refs/reasoning/tasks/W:refs/reasoning/tasks/W
  awk -v n="$commits" -v head="$(git rev-parse refs/reasoning/tasks/W)" 'BEGIN {
    msg = "assessment: nothing\n\nReason-Task: W\n"
    for (i = 1; i <= n; i++) {
      printf "commit refs/reasoning/tasks/W\ncommitter A <a@example.com> %d +0000\ndata %d\n%s", 1796500000 + i, length(msg), msg
      if (i == 1) printf "from %s\n", head
      printf "\n"
    }
  }' | git fast-import --quiet
fi
parent=
k=1
while [ "$entries" != 0 ] && [ "$k" -le "$commits" ]; do
  blob=$(echo "{\"k\": $k}" | git hash-object -w --stdin)
  records=$(awk -v b="$blob" -v n="$entries" 'BEGIN { for (i = 1; i <= n; i++) printf "100644 blob %s\t%010d-assessment-01J%023d.json\n", b, i, i }' | git mktree)
  root=$(printf '040000 tree %s\trecords\n' "$records" | git mktree)
  commit=$(printf 'assessment: wide\n\nReason-Task: W\n' | git commit-tree "$root" $parent)
  parent="-p $commit"
  k=$((k + 1))
done
[ "$entries" = 0 ] || git update-ref refs/reasoning/tasks/W "$commit"
git repack -q -a -d
echo "the remote's pack: $(du -k objects/pack | tail -n1 | cut -f1) KiB"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-14s %5s %8s %8s %8s %16s\n' build command exit 'wall s' 'CPU s' 'RSS MB' 'quarantine bytes'
for b in before after; do
  for c in pull fetched; do
    git init -q "$tmp/$b-$c"
    git -C "$tmp/$b-$c" remote add origin "$tmp/remote.git"
  done
  timed "$b" "$tmp/$b-pull" pull
  printf '%-7s %-14s %5s %8.2f %8.2f %8d %16s\n' "$b" pull "$code" "$wall" "$cpu" "$rss" \
    "$(wc -c <"$tmp/$b-pull/.git/reason/quarantine.json" 2>/dev/null || echo none)"
  git -C "$tmp/$b-fetched" fetch -q origin '+refs/reasoning/tasks/W:refs/reasoning/tasks/W'
  timed "$b" "$tmp/$b-fetched" verify --json W
  printf '%-7s %-14s %5s %8.2f %8.2f %8d\n' "$b" 'verify --json' "$code" "$wall" "$cpu" "$rss"
  rm -rf "$tmp/$b-pull" "$tmp/$b-fetched"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
