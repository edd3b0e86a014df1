#!/bin/sh
# What a fresh page costs this machine (go run ./bench/pagefaults), then
# `git reason assess` on a task of RECORDS records as built from this tree
# and from BASE, alternately, RUNS rounds, each build on its own copy of
# the repository (a task cache of one build's format is no cache to the
# other's): the median CPU (user + system of git-reason and the git
# processes it waits for) and minor page faults of each, and the load.
# With INSTR, the user-space instructions of git-reason in INSTR more
# assess runs of each build under valgrind's cachegrind, alternately, and
# their median: what load does not change.
# Usage: bench/pagefaults/run.sh [RECORDS] [RUNS] [BASE] [DIR] [INSTR]
#   RECORDS 100, RUNS 21, BASE main, INSTR 0; DIR keeps the generated
#   repository (bench/handover's: one task, every record admitted by the
#   real writer, packed by git gc); a repository put there as
#   DIR/repo-1-RECORDS beforehand, its task T-00000, is used as it is.
set -eu
cd "$(dirname "$0")/../.."
records=${1:-100} runs=${2:-21} base=${3:-main} dir=${4:-} instr=${5:-0}
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
[ "$instr" -gt 0 ] || exit 0
command -v valgrind >/dev/null || { echo "bench/pagefaults: INSTR needs valgrind" >&2; exit 2; }
count() { # build round: one assess under cachegrind, its instruction count
  cd "$dir/work-$1"
  GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$dir/$1/git-reason" assess T-00000 --subject "count $2" --question "q?" --materiality trivial \
    --reversibility reversible 2>&1 >/dev/null | awk '/I +refs:/ { gsub(",", "", $NF); print $NF }' >>"$dir/instr-$1"
}
: >"$dir/instr-base"; : >"$dir/instr-new"
i=1
while [ "$i" -le "$instr" ]; do count base "$i"; count new "$i"; i=$((i + 1)); done
for b in base new; do
  n=$(sort -n "$dir/instr-$b" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
  echo "$b: assess on a task of $records records, median of $instr under cachegrind: $n instructions"
done
