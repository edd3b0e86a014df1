#!/bin/sh
# A remote of TASKS task refs whose trees git's object checks refuse (a
# records/ tree naming one file twice; one tree and TASKS commits, a
# push of a few KiB) and one honest task, as built from REV and from the
# work tree: the exit status, wall and CPU seconds (user + system, git's
# processes included) and peak RSS of `pull` into a new repository, and
# the git fetch processes it started (GIT_TRACE). The command is cut at
# CAP seconds. pull_refused_many.txtar holds the fetches to 32.
# Usage: bench/refused/run.sh [REV] [TASKS] [CAP]
#   REV: c18d0dd^ (before a pull made at most 32 fetches looking for
#   the refused tasks); TASKS: 300; CAP: 600.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-c18d0dd^} tasks=${2:-300} cap=${3:-600}
. bench/twobuilds.sh
. bench/forge.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q "$tmp/src"
cd "$tmp/src"
PATH="$tmp/after:$PATH" git reason assess U --subject 'Log level' --question 'Debug in staging?' \
  --materiality trivial --reversibility reversible >/dev/null
blob=$(echo '{"i": 1}' | git hash-object -w --stdin)
records=$(printf '100644 blob %s\tx.json\n100644 blob %s\tx.json\n' "$blob" "$blob" | git mktree)
root=$(printf '040000 tree %s\trecords\n' "$records" | git mktree)
i=1
while [ "$i" -le "$tasks" ]; do
  echo "create refs/reasoning/tasks/B$i $(printf 'assessment: %s\n' "$i" | git commit-tree "$root")"
  i=$((i + 1))
done | git update-ref --stdin
git init -q --bare "$tmp/remote.git"
git push -q "$tmp/remote.git" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-7s %5s %8s %8s %8s %12s\n' build command exit 'wall s' 'CPU s' 'RSS MB' 'git fetches'
for b in before after; do
  git init -q "$tmp/$b"
  git -C "$tmp/$b" remote add origin "$tmp/remote.git"
  GIT_TRACE="$tmp/trace-$b" timed "$b" "$tmp/$b" pull
  printf '%-7s %-7s %5s %8.2f %8.2f %8d %12s\n' "$b" pull "$code" "$wall" "$cpu" "$rss" \
    "$(grep -c 'built-in: git fetch' "$tmp/trace-$b" || true)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
