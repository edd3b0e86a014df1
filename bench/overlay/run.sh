#!/bin/sh
# A repository's .reason/advisors.yaml, never trusted here, declaring N
# capabilities (which apply untrusted: the vocabulary only adds ids), and
# another declaring N new advisors (ignored untrusted), as built from REV
# and from the work tree: the exit status, wall and CPU seconds (user +
# system, git's processes included) and peak RSS of `advisors`, `plan`
# (of a task assessed before the file is put in place), `doctor` and
# `trust --show`. Each command is cut at CAP seconds. advisor's
# TestLargeOverlayLoadsLinearly holds the ids a load reads to a count.
# Usage: bench/overlay/run.sh [REV] [N] [CAP]
#   REV: 80cb356^ (before declarations were found by id in a map);
#   N: 30000 (the capabilities' file: 510 KB); CAP: 300.
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-80cb356^} n=${2:-30000} cap=${3:-300}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason
awk -v n="$n" 'BEGIN { print "capabilities:"; for (i = 0; i < n; i++) printf "  - {id: c%05d}\n", i }' >"$tmp/capabilities.yaml"
awk -v n="$n" 'BEGIN { print "advisors:"; for (i = 0; i < n; i++) printf "  - {id: a%05d}\n", i }' >"$tmp/advisors.yaml"
echo "files: capabilities $(wc -c <"$tmp/capabilities.yaml") bytes, advisors $(wc -c <"$tmp/advisors.yaml") bytes"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-13s %-7s %-12s %5s %8s %8s %8s\n' file build command exit 'wall s' 'CPU s' 'RSS MB'
for f in capabilities advisors; do
  for b in before after; do
    repo="$tmp/$b-$f"
    git init -q "$repo"
    (cd "$repo" && PATH="$tmp/$b:$PATH" git reason assess T --subject 'Cache size' --question 'How large?' \
      --materiality minor --reversibility reversible >/dev/null)
    mkdir "$repo/.reason"
    cp "$tmp/$f.yaml" "$repo/.reason/advisors.yaml"
    for c in advisors 'plan T' doctor 'trust --show'; do
      code=0
      # shellcheck disable=SC2086 # $c is a command and its arguments
      (cd "$repo" && PATH="$tmp/$b:$PATH" /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
        timeout "$cap" git reason $c >/dev/null 2>&1) || code=$?
      printf '%-13s %-7s %-12s %5s %8.2f %8.2f %8d\n' "$f" "$b" "$c" "$code" \
        "$(tail -n1 "$tmp/time" | awk '{ print $1 }')" "$(tail -n1 "$tmp/time" | awk '{ print $2 + $3 }')" \
        "$(tail -n1 "$tmp/time" | awk '{ print int($4 / 1024) }')"
    done
    rm -rf "$repo"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
