#!/bin/sh
# A first push of many tasks to an empty remote, base build against this
# tree's, in one copy of WORLD's clone (bench/scale's world): `git-reason
# push fresh` of the first TASKS tasks to a new bare repository, wall and
# CPU (user + system of git-reason and every process it waits for, by
# /usr/bin/time), medians of RUNS interleaved runs. Between runs the
# remote is made again and the tracking refs the push set are removed.
# Usage: bench/push/first.sh BASE [WORLD] [TASKS] [RUNS] [hooks|server]
#   BASE: a revision; WORLD: /var/tmp/scale/w20000; TASKS: 3000 (all:
#   every task of the clone); RUNS: 3; hooks: git reason's hooks are
#   installed in the clone, so git push runs the pre-push hook; server:
#   its server hooks in the remote (hooks install --server), so the
#   remote runs the pre-receive hook (either way each build its own: it
#   comes first on PATH)
set -eu
cd "$(dirname "$0")/../.."
base=$1 world=${2:-/var/tmp/scale/w20000} tasks=${3:-3000} runs=${4:-3} hooks=${5:-}
. bench/twobuilds.sh
scratch
twobuilds "$base" ./cmd/...
dir=$tmp
mv "$dir/before" "$dir/base" && mv "$dir/after" "$dir/new"
cp -a "$world/clone" "$dir/clone"
cd "$dir/clone"
if [ "$tasks" = all ]; then
  git for-each-ref --format='%(refname:strip=3)' refs/reasoning/tasks/ >"$dir/all"
  : >"$dir/names" # push names no task: every task
else
  git for-each-ref --count="$tasks" --format='%(refname:strip=3)' refs/reasoning/tasks/ >"$dir/all"
  cp "$dir/all" "$dir/names"
fi
if [ "$hooks" = hooks ]; then
  "$dir/new/git-reason" hooks install >/dev/null
fi
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(wc -l <"$dir/all") tasks pushed"
for i in $(seq "$runs"); do
  for b in base new; do
    rm -rf "$dir/fresh.git"
    git init -q --bare "$dir/fresh.git"
    if [ "$hooks" = server ]; then
      (cd "$dir/fresh.git" && "$dir/$b/git-reason" hooks install --server >/dev/null)
    fi
    git remote add fresh "$dir/fresh.git"
    # shellcheck disable=SC2046 # the task names, one word each
    PATH="$dir/$b:$PATH" /usr/bin/time -f "$b %e %U %S" -a -o "$dir/m" \
      "$dir/$b/git-reason" push fresh $(cat "$dir/names") >"$dir/out" 2>&1 ||
      { echo "$b: push failed:"; tail -3 "$dir/out"; exit 1; }
    test "$(git -C "$dir/fresh.git" for-each-ref refs/reasoning/tasks/ | wc -l)" = "$(wc -l <"$dir/all")" ||
      { echo "$b: the remote lacks tasks"; exit 1; }
    test -z "$(git for-each-ref refs/reason-push/)" || { echo "$b: left refs/reason-push/"; exit 1; }
    git remote remove fresh
    git for-each-ref --format='delete %(refname)' refs/reasoning/remotes/fresh/ | git update-ref --stdin
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ w[$1, ++n[$1]] = $2; c[$1, n[$1]] = $3 + $4 }
  function median(a, b, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[b, j] < a[b, i]) { t = a[b, i]; a[b, i] = a[b, j]; a[b, j] = t } return a[b, int((m + 1) / 2)] }
  END { bw = median(w, "base", n["base"]); nw = median(w, "new", n["new"]); bc = median(c, "base", n["base"]); nc = median(c, "new", n["new"])
    printf "first push, medians of %d: base %.2f s wall, %.2f s CPU; new %.2f s wall, %.2f s CPU (%.2fx wall, %.2fx CPU)\n", n["new"], bw, bc, nw, nc, nw / bw, nc / bc }' "$dir/m"
