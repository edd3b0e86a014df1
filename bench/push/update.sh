#!/bin/sh
# A push of tasks that moved on (the remote holds each at the head a
# first push gave it; the clone appended one record to each since), with
# git reason's hooks on both ends (the clone's pre-push hook, the
# remote's pre-receive hook: `hooks install`, `hooks install --server`)
# against the same push without them (both removed, and the
# receive.fsckObjects installing them set on the remote), in one copy of
# WORLD's clone (bench/scale's world): `git-reason push up` of the first
# TASKS tasks, wall and CPU (user + system of git-reason and every
# process it waits for, the hooks and the remote's included, by
# /usr/bin/time), medians of RUNS interleaved rounds. The first push
# went through this build's hooks on both ends, so the remote remembers
# what its hook checked. The record each task gains is a `git reason
# assess` of it, written once. Before each run the remote and the clone
# are copied again from that state (the clone whole: its tracking refs
# and what it remembers of them and of what it verified, as a clone in
# use keeps them). With BASE, that revision's build with the hooks is
# timed in the same rounds (the hooks run the git-reason first on PATH).
# With COST=FILE every process of the runs appends its cost
# (GIT_REASON_COST) to FILE.
# Usage: bench/push/update.sh [WORLD] [TASKS] [RUNS] [BASE]
#   WORLD: /var/tmp/scale/w20000; TASKS: 300; RUNS: 3
set -eu
cd "$(dirname "$0")/../.."
world=${1:-/var/tmp/scale/w20000} tasks=${2:-300} runs=${3:-3} base=${4:-}
. bench/twobuilds.sh
scratch
dir=$tmp
if [ -n "$base" ]; then
  twobuilds "$base" ./cmd/...
  mv "$dir/before" "$dir/base" && mv "$dir/after" "$dir/new"
  builds="new base"
else
  go build -tags urfave_cli_no_docs,netgo -o "$dir/new/" ./cmd/...
  export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1
  mkdir -p "$HOME"
  git config --global user.name Bench
  git config --global user.email bench@example.invalid
  builds=new
fi
cp -a "$world/clone" "$dir/clone"
cd "$dir/clone"
git for-each-ref --count="$tasks" --format='%(refname:strip=3)' refs/reasoning/tasks/ >"$dir/names"
git init -q --bare "$dir/up.git"
git remote add up "$dir/up.git"
# The first push, as the later ones with the hooks, through this build's
# hooks on both ends (what the remote's hook checked it remembers).
"$dir/new/git-reason" hooks install >/dev/null
(cd "$dir/up.git" && "$dir/new/git-reason" hooks install --server >/dev/null)
# shellcheck disable=SC2046 # the task names, one word each
PATH="$dir/new:$PATH" "$dir/new/git-reason" push up $(cat "$dir/names") >"$dir/out" 2>&1 ||
  { echo "first push failed:"; tail -3 "$dir/out"; exit 1; }
mv "$dir/up.git" "$dir/first.git"
while read -r task; do
  PATH="$dir/new:$PATH" "$dir/new/git-reason" assess "$task" --subject "moved on" --question q \
    --materiality trivial --reversibility reversible >/dev/null
done <"$dir/names"
git for-each-ref --format='%(refname:strip=3) %(objectname)' refs/reasoning/tasks/ | sort >"$dir/want"
cd "$dir"
mv clone moved
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(wc -l <"$dir/names") tasks moved on by one record each"
for i in $(seq "$runs"); do
  for run in plain $builds; do
    b=$run
    [ "$run" = plain ] && b=new
    rm -rf "$dir/up.git" "$dir/clone"
    cp -a "$dir/first.git" "$dir/up.git"
    cp -a "$dir/moved" "$dir/clone"
    cd "$dir/clone"
    if [ "$run" = plain ]; then
      "$dir/new/git-reason" hooks uninstall >/dev/null
      (cd "$dir/up.git" && "$dir/new/git-reason" hooks uninstall --server >/dev/null && git config --unset receive.fsckObjects)
    fi
    # shellcheck disable=SC2046 # the task names, one word each
    PATH="$dir/$b:$PATH" env ${COST:+GIT_REASON_COST=$COST} /usr/bin/time -f "$run %e %U %S" -a -o "$dir/m" \
      "$dir/$b/git-reason" push up $(cat "$dir/names") >"$dir/out" 2>&1 ||
      { echo "$run: push failed:"; tail -3 "$dir/out"; exit 1; }
    git -C "$dir/up.git" for-each-ref --format='%(refname:strip=3) %(objectname)' refs/reasoning/tasks/ | sort >"$dir/got"
    join "$dir/got" "$dir/want" | awk '$2 != $3 { bad = 1 } END { exit bad }' &&
      test "$(wc -l <"$dir/got")" = "$(wc -l <"$dir/names")" ||
      { echo "$run: the remote lacks the moved heads"; exit 1; }
    test -z "$(git for-each-ref refs/reason-push/)" || { echo "$run: left refs/reason-push/"; exit 1; }
  done
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ w[$1, ++n[$1]] = $2; c[$1, n[$1]] = $3 + $4 }
  function median(a, b, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[b, j] < a[b, i]) { t = a[b, i]; a[b, i] = a[b, j]; a[b, j] = t } return a[b, int((m + 1) / 2)] }
  END { pw = median(w, "plain", n["plain"]); pc = median(c, "plain", n["plain"])
    for (b in n) { if (b == "plain") continue
      bw = median(w, b, n[b]); bc = median(c, b, n[b])
      printf "push of moved tasks, medians of %d: %s with the hooks %.2f s wall, %.2f s CPU; without them %.2f s wall, %.2f s CPU (%.2fx wall, %.2fx CPU)\n", n[b], b, bw, bc, pw, pc, bw / pw, bc / pc } }' "$dir/m"
