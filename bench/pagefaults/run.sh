#!/bin/sh
# What a fresh page costs this machine (go run ./bench/pagefaults), then
# `git reason assess` on a task of RECORDS records as built from this tree
# and from BASE, alternately, RUNS rounds, each build on its own copy of
# the repository (a task cache of one build's format is no cache to the
# other's): the median CPU (user + system of git-reason and the git
# processes it waits for) and minor page faults of each, and the load.
# Usage: bench/pagefaults/run.sh [RECORDS] [RUNS] [BASE] [DIR]
#   RECORDS 100, RUNS 21, BASE main; DIR keeps the generated repository
#   (bench/handover's: one task, every record admitted by the real
#   writer, packed by git gc).
set -eu
cd "$(dirname "$0")/../.."
records=${1:-100} runs=${2:-21} base=${3:-main} dir=${4:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
go run ./bench/pagefaults -rounds 3
repo="$dir/repo-1-$records"
[ -d "$repo" ] || go run ./bench/handover -tasks 1 -records "$records" -runs 1 -dir "$dir" >/dev/null
tags=urfave_cli_no_docs,netgo
mkdir -p "$dir/new" "$dir/base"
go build -tags "$tags" -o "$dir/new/" ./cmd/git-reason
rm -rf "$dir/base-src"
git worktree add --detach "$dir/base-src" "$base" >/dev/null 2>&1
(cd "$dir/base-src" && go build -tags "$tags" -o "$dir/base/" ./cmd/git-reason)
git worktree remove --force "$dir/base-src"
export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
git config --global user.name >/dev/null || git config --global user.name Bench
git config --global user.email >/dev/null || git config --global user.email bench@example.com
assess() { # build round
  cd "$dir/work-$1"
  /usr/bin/time -f "%U %S %R" -o "$dir/t" "$dir/$1/git-reason" assess T-00000 --subject "bench $2" \
    --question "q?" --materiality trivial --reversibility reversible >/dev/null
  awk '{ printf "%.0f %d\n", ($1 + $2) * 1000, $3 }' "$dir/t" >>"$dir/runs-$1"
}
for b in base new; do
  rm -rf "$dir/work-$b"; cp -a "$repo" "$dir/work-$b"; : >"$dir/runs-$b"
  assess "$b" 0; : >"$dir/runs-$b" # its caches built, in its format
done
echo "load at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$runs" ]; do
  if [ $((i % 2)) = 1 ]; then assess base "$i"; assess new "$i"; else assess new "$i"; assess base "$i"; fi
  i=$((i + 1))
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for b in base new; do
  cpu=$(sort -n "$dir/runs-$b" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  flt=$(sort -k2 -n "$dir/runs-$b" | awk '{ a[NR] = $2 } END { print a[int((NR + 1) / 2)] }')
  echo "$b: assess on a task of $records records, median of $runs: cpu $cpu ms, $flt minor faults"
done
