#!/bin/sh
# A fetched merge commit naming one parent LINES times (git's object
# checks accept it: hash-object writes it, commit-tree would not), over a
# task of RECORDS records, as built from REV and from the work tree: the
# exit status, wall and CPU seconds (user + system, git's processes
# included) and peak RSS of `pull` of a remote holding it into a new
# repository and `status T` after it, and, in another, the task fetched
# by plain git past pull, of `verify T` and `status T`. Each command is
# cut at CAP seconds; REV's build runs only up to BEFOREMAX lines (its
# cost grows with the square of the lines). record's
# TestMergeOfManyParentsIsLinear holds the work to a count.
# Usage: bench/mergeparents/run.sh [REV] [RECORDS] [LINES] [CAP] [BEFOREMAX]
#   REV: 8c5eb13^ (before a merge naming a parent twice was refused and
#   the union checked in one pass); RECORDS: 152; LINES: "1500 21000"
#   (21,000 parent lines fill 1 MiB); CAP: 300; BEFOREMAX: 4000.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-8c5eb13^} records=${2:-152} lines=${3:-1500 21000} cap=${4:-300} beforemax=${5:-4000}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
git init -q "$tmp/src"
git init -q --bare "$tmp/remote.git"
cd "$tmp/src"
i=0
while [ $((i * 2)) -lt "$records" ]; do
  PATH="$tmp/after:$PATH" git reason assess T --subject "Subject $i" --question "Which way for $i?" \
    --materiality trivial --reversibility reversible >/dev/null
  PATH="$tmp/after:$PATH" git reason plan T >/dev/null
  i=$((i + 1))
done
head=$(git rev-parse refs/reasoning/tasks/T)
echo "task T: $(git rev-list --count "$head") records"
measure() { # measure LINES BUILD DIR ARGS...: one row of the table
  n=$1 b=$2 dir=$3
  shift 3
  code=0
  (cd "$dir" && PATH="$tmp/$b:$PATH" /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
    timeout "$cap" git reason "$@" >/dev/null 2>&1) || code=$?
  printf '%6s %-7s %-9s %5s %8.2f %8.2f %8d\n' "$n" "$b" "$1" "$code" \
    "$(tail -n1 "$tmp/time" | awk '{ print $1 }')" "$(tail -n1 "$tmp/time" | awk '{ print $2 + $3 }')" \
    "$(tail -n1 "$tmp/time" | awk '{ print int($4 / 1024) }')"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %-7s %-9s %5s %8s %8s %8s\n' lines build command exit 'wall s' 'CPU s' 'RSS MB'
for n in $lines; do
  merge=$({
    printf 'tree %s\n' "$(git rev-parse "$head^{tree}")"
    awk -v h="$head" -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "parent %s\n", h }'
    printf 'author A <a@example.com> 1796551600 +0000\ncommitter A <a@example.com> 1796551600 +0000\n\nmerge: task T\n\nReason-Task: T\n'
  } | git hash-object -t commit -w --stdin)
  git push -q -f "$tmp/remote.git" "$merge:refs/reasoning/tasks/T"
  for b in before after; do
    if [ "$b" = before ] && [ "$n" -gt "$beforemax" ]; then
      continue
    fi
    # pull into a new clone, then a status of the task it created (or
    # not); verify in another, the task fetched by plain git past pull.
    for c in pull fetched; do
      git init -q "$tmp/$b-$c"
      git -C "$tmp/$b-$c" remote add origin "$tmp/remote.git"
    done
    measure "$n" "$b" "$tmp/$b-pull" pull
    measure "$n" "$b" "$tmp/$b-pull" status T
    git -C "$tmp/$b-fetched" fetch -q origin '+refs/reasoning/tasks/T:refs/reasoning/tasks/T'
    measure "$n" "$b" "$tmp/$b-fetched" verify T
    measure "$n" "$b" "$tmp/$b-fetched" status T
    rm -rf "$tmp/$b-pull" "$tmp/$b-fetched"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
