#!/bin/sh
# A record whose body's needs are COUNT distinct numbers like 2e999999
# (1e999999, 2e999999, ...: uniqueItems compares them), which the
# schema library read each as a big.Rat (10^999999), as built from REV
# and from the work tree: the exit status, wall and CPU seconds (user +
# system, git's processes included) and peak RSS of `status N`,
# `status`, `log N` and `verify`. A second repository writes an honest
# task H and, with git plumbing alone, task N whose one record is H's
# assessment with those needs; the measured repository gets it with
# plain git fetch. Each command is cut at CAP seconds. record's
# TestHugeNumbersNeverReachTheLibrary holds that no such number reaches
# the library.
# Usage: bench/hugenumbers/run.sh [REV] [COUNTS] [CAP]
#   REV: 500ccc2^ (before such numbers were refused first); COUNTS:
#   "1000 80000" (80,000 fill a record of 1 MiB); CAP: 120.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-500ccc2^} counts=${2:-1000 80000} cap=${3:-120}
. bench/twobuilds.sh
. bench/forge.sh
scratch
twobuilds "$rev" ./cmd/git-reason
attacker
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %-7s %-9s %5s %8s %8s %8s\n' count build command exit 'wall s' 'CPU s' 'RSS MB'
for n in $counts; do
  awk -v n="$n" 'BEGIN { printf "["; for (i = 1; i <= n; i++) printf "%s%de999999", (i > 1 ? "," : ""), i; print "]" }' >"$tmp/x"
  forge N needs "$tmp/x"
  for b in before after; do
    repo="$tmp/$b-$n"
    git init -q "$repo"
    git -C "$repo" fetch -q "$tmp/attacker" '+refs/reasoning/tasks/*:refs/reasoning/tasks/*'
    for c in 'status N' status 'log N' verify; do
      # shellcheck disable=SC2086 # $c is a command and its arguments
      timed "$b" "$repo" $c
      printf '%6s %-7s %-9s %5s %8.2f %8.2f %8d\n' "$n" "$b" "$c" "$code" "$wall" "$cpu" "$rss"
    done
    rm -rf "$repo"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
