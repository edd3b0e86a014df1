#!/bin/sh
# What `git reason status` (no task: every task's row) touches in a clone
# of many tasks, base build against this tree's, on one copy of WORLD
# (bench/scale's world: clone/ and a home beside it, copied with its
# mtimes so the caches under .git/reason/ stay current): minor page
# faults (time's %R, of git-reason and the git processes it waits for),
# bytes and objects allocated (GODEBUG=gctrace=1 is not per run, so the
# heap's peak is gctrace's largest "->N MB" figure; objects are the
# process's Mallocs as GIT_REASON_COST writes them) and, when valgrind is
# installed, git-reason's own instructions (cachegrind) -- counts the
# machine's load does not change -- as medians of RUNS interleaved runs.
# The full text output and --json of both builds are compared first.
# Usage: bench/status/all.sh BASE [WORLD] [RUNS] [HOME]
#   BASE: a revision; WORLD: /var/tmp/scale/w20000; RUNS: 9;
#   HOME: /var/tmp/scale/home
set -eu
cd "$(dirname "$0")/../.."
base=$1 world=${2:-/var/tmp/scale/w20000} runs=${3:-9}
home=${4:-/var/tmp/scale/home}
dir=$(mktemp -d) repo=$(pwd)
trap 'git -C "$repo" worktree remove --force "$dir/base-src" 2>/dev/null || :; rm -rf "$dir"' EXIT
tags=urfave_cli_no_docs,netgo
mkdir -p "$dir/new" "$dir/base"
go build -tags "$tags" -o "$dir/new/" ./cmd/...
git worktree add --detach "$dir/base-src" "$base" >/dev/null 2>&1
(cd "$dir/base-src" && go build -tags "$tags" -o "$dir/base/" ./cmd/...)
git worktree remove --force "$dir/base-src"
cp -a "$world" "$dir/w"
export HOME="$home" # after the builds: go keeps its caches under the user's HOME
cd "$dir/w/clone"
for b in base new; do # warm both; then the outputs must be equal
  "$dir/$b/git-reason" status >/dev/null
done
for b in base new; do
  "$dir/$b/git-reason" status >"$dir/$b.txt"
  "$dir/$b/git-reason" status --json >"$dir/$b.json"
done
cmp "$dir/base.txt" "$dir/new.txt" && cmp "$dir/base.json" "$dir/new.json"
echo "output: $(wc -l <"$dir/new.txt") lines, text and --json identical"
for i in $(seq "$runs"); do
  for b in base new; do
    /usr/bin/time -f "$b faults %R" -a -o "$dir/m" "$dir/$b/git-reason" status >/dev/null
    rm -f "$dir/cost"
    GIT_REASON_COST="$dir/cost" "$dir/$b/git-reason" status >/dev/null
    sed -n 's/.*"allocs":\([0-9]*\).*/'"$b"' objects-allocated \1/p' "$dir/cost" >>"$dir/m"
    GODEBUG=gctrace=1 "$dir/$b/git-reason" status 2>&1 >/dev/null |
      awk -v b="$b" '/^gc / { n = split($0, f, "->"); split(f[n - 1], g, " "); if (g[1] + 0 > peak) peak = g[1] + 0 } END { print b, "heap-peak-MB", peak + 0 }' >>"$dir/m"
  done
done
if command -v valgrind >/dev/null; then
  for b in base new; do
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$dir/$b/git-reason" status 2>&1 >/dev/null |
      awk -v b="$b" '/I *refs:/ { gsub(",", "", $NF); print b, "instructions", $NF }' >>"$dir/m"
  done
fi
awk '{ k = $2; v[$1, k, ++n[$1, k]] = $3; keys[k] = 1 }
  END { for (k in keys) { line = k ":"; for (bi = 1; bi <= 2; bi++) { b = bi == 1 ? "base" : "new"; m = n[b, k]
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[b, k, j] < v[b, k, i]) { t = v[b, k, i]; v[b, k, i] = v[b, k, j]; v[b, k, j] = t }
    line = line sprintf(" %s %s (median of %d)", b, v[b, k, int((m + 1) / 2)], m) } print line } }' "$dir/m" | sort
