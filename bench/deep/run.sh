#!/bin/sh
# Records and bodies nested 9,000 deep, as built from REV and from the work
# tree, ROUNDS rounds alternating: CPU seconds (user + system, git's
# processes included) and peak RSS of each command. A second repository
# writes an honest task H and, with git plumbing alone, tasks whose one
# record is H's assessment with a body member "x" holding arrays nested
# 9,000 deep (D), objects {"a":...} nested 9,000 deep (O), or 19 such
# objects (F, 1 MiB, the limit of a record); the measured repository gets
# them with plain git fetch. Then: status of each, status of all, verify,
# and an assess whose --file body (54 KiB, under the limit of a body)
# holds objects nested 9,000 deep.
# Usage: bench/deep/run.sh [REV] [ROUNDS]   (REV: 7f54592, before the
# bound on nesting; ROUNDS: 3)
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-7f54592} rounds=${2:-3}
. bench/twobuilds.sh
scratch
twobuilds "$rev" ./cmd/git-reason

nest() { # nest a|o DEPTH: arrays or objects nested DEPTH deep
  awk -v k="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf (k == "a" ? "[" : "{\"a\":");
    if (k == "o") printf "1"; for (i = 0; i < n; i++) printf (k == "a" ? "]" : "}") }'
}
git init -q "$tmp/attacker"
cd "$tmp/attacker"
PATH="$tmp/after:$PATH" git reason assess H --subject 'Session store' --question 'Which store?' \
  --materiality minor --reversibility reversible >/dev/null
name=$(git ls-tree --name-only refs/reasoning/tasks/H:records)
git cat-file blob "refs/reasoning/tasks/H:records/$name" >"$tmp/honest.json"
forge() { # forge TASK X: H's record as TASK's, its body with member "x": X
  printf '%s' "$2" >"$tmp/x"
  awk -v task="$1" -v xf="$tmp/x" 'BEGIN { getline x <xf }
    /"task": "H"/ { sub(/"H"/, "\"" task "\"") }
    /"body": \{/ { sub(/\{/, "{\"x\": " x ",") } { print }' "$tmp/honest.json" >"$tmp/forged.json"
  blob=$(git hash-object -w "$tmp/forged.json")
  records=$(printf '100644 blob %s\t%s\n' "$blob" "$name" | git mktree)
  root=$(printf '040000 tree %s\trecords\n' "$records" | git mktree)
  git update-ref "refs/reasoning/tasks/$1" "$(printf 'assessment: forged\n\nReason-Task: %s\n' "$1" | git commit-tree "$root")"
}
forge D "$(nest a 9000)"
forge O "$(nest o 9000)"
o=$(nest o 9000)
forge F "[$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o,$o]"
echo "F's record: $(wc -c <"$tmp/forged.json") bytes"
printf '{"subject":"S","question":"q","materiality":"minor","reversibility":"reversible","x":%s}' "$o" >"$tmp/body.json"
echo "the body: $(wc -c <"$tmp/body.json") bytes"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %-16s %8s %12s\n' round build command 'CPU s' 'peak RSS MB'
for r in $(seq "$rounds"); do
  for v in before after; do
    repo="$tmp/$v-$r"
    git init -q "$repo"
    git -C "$repo" fetch -q "$tmp/attacker" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
    for c in 'status H' 'status D' 'status O' 'status F' status verify "assess B --file $tmp/body.json"; do
      (cd "$repo" && PATH="$tmp/$v:$PATH" /usr/bin/time -f '%U %S %M' -o "$tmp/time" git reason $c >/dev/null 2>&1) || true
      printf '%-6s %-7s %-16s %8.2f %12d\n' "$r" "$v" "$(echo "$c" | cut -d' ' -f1-3 | sed "s|$tmp/||")" \
        "$(tail -n1 "$tmp/time" | awk '{ print $1 + $2 }')" "$(tail -n1 "$tmp/time" | awk '{ print int($3 / 1024) }')"
    done
    rm -rf "$repo"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
