#!/bin/sh
# What `git reason status TASK` costs on a task of many records, next to
# what git itself costs in the same run: the first status after the
# caches under .git/reason/ are removed (the whole history replayed),
# warm runs (the head shown before: its memo, no record read), and the
# status after each of RUNS new records (that record replayed from the
# head remembered clean before it, the task's records derived once);
# `git log -1` and `git cat-file -p` of the task's head are the floor of
# a process that reads the repository, and `git reason version` that of
# the program's start. Target: warm <= 50 ms for 1,000
# records, and after one new record as close as it gets. CPU (user+sys)
# is reported next to wall time: on a shared machine the wall time says
# more about the load than the program.
# Usage: bench/status/run.sh [RECORDS] [RUNS] [DIR]
#   RECORDS: 1000; RUNS: 11; DIR: where the repository is generated
#   (kept and reused across runs; default a temporary directory, removed).
# The repository is bench/handover's: one task, every record admitted by
# the real writer, packed by git gc. Counts that do not depend on timing
# are reliability.TestStatusCounts's.
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
one() { # label command...
  l=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$dir/t" "$@" >"$dir/out"
  awk -v l="$l" '{ printf "wall %5.0f ms cpu %4.0f ms %s\n", $1 * 1000, ($2 + $3) * 1000, l }' "$dir/t"
}
median() { # label file: the median line of file by cpu
  sort -k5 -n "$2" | awk -v n="$runs" -v l="$1" '{ a[NR] = $0 } END { split(a[int((n + 1) / 2)], f, " "); printf "median by cpu: wall %5s ms cpu %4s ms %s\n", f[2], f[5], l }'
}
rm -rf .git/reason
one cold git reason status "$task"
grep -c 'does not verify' "$dir/out" >/dev/null && { echo "the generated task does not verify"; exit 1; }
: >"$dir/warm"; : >"$dir/after"; : >"$dir/log"; : >"$dir/catfile"; : >"$dir/version"
i=0
while [ "$i" -lt "$runs" ]; do
  one warm git reason status "$task" >>"$dir/warm"
  one "git log -1" git log -1 "refs/reasoning/tasks/$task" >>"$dir/log"
  one "git cat-file -p" git cat-file -p "refs/reasoning/tasks/$task" >>"$dir/catfile"
  one "git reason version" git reason version >>"$dir/version"
  # One record more: its status replays that commit alone, from the
  # head remembered clean before it.
  git reason attempt "$task" --commit "$(git rev-parse HEAD)" --outcome succeeded >/dev/null
  one "after one write" git reason status "$task" >>"$dir/after"
  i=$((i + 1))
done
median "status warm" "$dir/warm"
median "status after one record" "$dir/after"
median "git log -1" "$dir/log"
median "git cat-file -p" "$dir/catfile"
median "git reason version (its start)" "$dir/version"
