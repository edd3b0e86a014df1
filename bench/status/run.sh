#!/bin/sh
# What `git reason status TASK` costs on a task of many records, next to
# what git itself costs in the same run: the first status after the
# caches under .git/reason/ are removed (the whole history replayed),
# warm runs (the head shown before: its memo, no record read), and the
# status after each of RUNS new records (that record replayed from the
# head remembered clean before it); `git log -1` and `git cat-file -p` of
# the task's head are the floor of a process that reads the repository,
# and `git reason version` that of the program's start. Target: warm
# <= 50 ms for 1,000 records, and after one new record as close as it
# gets. CPU (user+sys, of git reason and the git processes it waits for)
# is reported next to wall time: on a shared machine the wall time says
# more about the load than the program.
# Usage: bench/status/run.sh [RECORDS] [RUNS] [DIR] [BASE]
#   RECORDS: 1000; RUNS: 11; DIR: where the repository is generated
#   (kept and reused across runs; default a temporary directory, removed);
#   BASE: a revision to build and time in the same rounds, on its own
#   copy of the repository (before and after from one run).
# git-reason is built as README installs it (-tags urfave_cli_no_docs,netgo).
# The repository is bench/handover's: one task, every record admitted by
# the real writer, packed by git gc. Counts that do not depend on timing
# are reliability.TestStatusCounts's and TestStatusAndLogGitProcesses's.
set -eu
cd "$(dirname "$0")/../.."
records=${1:-1000} runs=${2:-11} dir=${3:-} base=${4:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
repo="$dir/repo-1-$records"
if [ ! -d "$repo" ]; then
  go run ./bench/handover -tasks 1 -records "$records" -runs 1 -dir "$dir" >/dev/null
fi
tags=urfave_cli_no_docs,netgo
go build -tags "$tags" -o "$dir/bin/git-reason" ./cmd/git-reason
builds="new"
if [ -n "$base" ]; then
  rm -rf "$dir/base-src" "$dir/base"
  git worktree add --detach "$dir/base-src" "$base" >/dev/null 2>&1
  (cd "$dir/base-src" && go build -tags "$tags" -o "$dir/base/git-reason" ./cmd/git-reason)
  git worktree remove --force "$dir/base-src"
  builds="base new"
fi
export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1 CI=
task=T-00000
path0=$PATH
use() { # build: its binary first on PATH, its own copy of the repository
  case $1 in
  new) PATH="$dir/bin:$path0" ;;
  base) PATH="$dir/base:$path0" ;;
  esac
  export PATH
  cd "$dir/work-$1"
}
one() { # label command...
  l=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$dir/t" "$@" >"$dir/out"
  awk -v l="$l" '{ printf "wall %5.0f ms cpu %4.0f ms %s\n", $1 * 1000, ($2 + $3) * 1000, l }' "$dir/t"
}
median() { # label file: the median line of file by cpu
  sort -k5 -n "$2" | awk -v n="$runs" -v l="$1" '{ a[NR] = $0 } END { split(a[int((n + 1) / 2)], f, " "); printf "median by cpu: wall %5s ms cpu %4s ms %s\n", f[2], f[5], l }'
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); records: $(git -C "$repo" ls-tree refs/reasoning/tasks/$task:records | wc -l)"
for b in $builds; do
  rm -rf "$dir/work-$b"
  cp -a "$repo" "$dir/work-$b"
  use "$b"
  rm -rf .git/reason
  one "cold ($b)" git reason status "$task"
  grep -c 'does not verify' "$dir/out" >/dev/null && { echo "the generated task does not verify"; exit 1; }
  : >"$dir/warm-$b"; : >"$dir/after-$b"; : >"$dir/version-$b"
done
: >"$dir/log"; : >"$dir/catfile"
i=0
while [ "$i" -lt "$runs" ]; do
  for b in $builds; do
    use "$b"
    one "warm ($b)" git reason status "$task" >>"$dir/warm-$b"
    one "git reason version ($b)" git reason version >>"$dir/version-$b"
    # One record more: its status replays that commit alone, from the
    # head remembered clean before it.
    git reason attempt "$task" --commit "$(git rev-parse HEAD)" --outcome succeeded >/dev/null
    one "after one write ($b)" git reason status "$task" >>"$dir/after-$b"
  done
  one "git log -1" git log -1 "refs/reasoning/tasks/$task" >>"$dir/log"
  one "git cat-file -p" git cat-file -p "refs/reasoning/tasks/$task" >>"$dir/catfile"
  i=$((i + 1))
done
for b in $builds; do
  median "status warm ($b)" "$dir/warm-$b"
  median "status after one record ($b)" "$dir/after-$b"
  median "git reason version, its start ($b)" "$dir/version-$b"
done
median "git log -1" "$dir/log"
median "git cat-file -p" "$dir/catfile"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
