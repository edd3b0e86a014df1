#!/bin/sh
# What `git reason status TASK` costs on a task of many records now that
# read surfaces show the task as replay derives it (gitstore.Store.
# DeriveVerified): the first status after the caches under .git/reason/
# are removed (the whole history replayed, the head remembered clean),
# then warm runs (the head remembered: no replay), then the first status
# after one more record (replayed from the remembered head). Target: warm <= 50 ms
# for 1,000 records. CPU (user+sys) is reported next to wall time: on a
# shared machine the wall time says more about the load than the program.
# Usage: bench/status/run.sh [RECORDS] [RUNS] [DIR]
#   RECORDS: 1000; RUNS: 11; DIR: where the repository is generated
#   (kept and reused across runs; default a temporary directory, removed).
# The repository is bench/handover's: one task, every record admitted by
# the real writer, packed by git gc.
set -eu
cd "$(dirname "$0")/../.."
records=${1:-1000} runs=${2:-11} dir=${3:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
repo="$dir/repo-1-$records"
if [ ! -d "$repo" ]; then
  go run ./bench/handover -tasks 1 -records "$records" -runs 1 -dir "$dir" >/dev/null
fi
go build -o "$dir/bin/git-reason" ./cmd/git-reason
PATH="$dir/bin:$PATH"
export PATH HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1 CI=
cd "$repo"
task=T-00000
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); records: $(git ls-tree refs/reasoning/tasks/$task:records | wc -l)"
one() { # label
  /usr/bin/time -f "%e %U %S" -o "$dir/t" git reason status "$task" >"$dir/out"
  awk -v l="$1" '{ printf "%s wall %.0f ms cpu %.0f ms\n", l, $1 * 1000, ($2 + $3) * 1000 }' "$dir/t"
}
rm -rf .git/reason
one cold
grep -c 'does not verify' "$dir/out" >/dev/null && { echo "the generated task does not verify"; exit 1; }
i=0
while [ "$i" -lt "$runs" ]; do one warm; i=$((i + 1)); done | tee "$dir/warm"
# One record more: its status replays that commit alone, from the head
# remembered clean before it.
git reason attempt "$task" --commit "$(git rev-parse HEAD)" --outcome succeeded >/dev/null
one "after one write"
sort -k5 -n "$dir/warm" | awk -v n="$runs" '{ a[NR] = $0 } END { print "median by cpu:", a[int((n + 1) / 2)] }'
