# Sourced by the benchmarks that give a repository a forged record over
# plain git fetch, after bench/twobuilds.sh (twobuilds done), from any
# directory. attacker makes $tmp/attacker, where the work tree's build
# writes an honest task H, and keeps H's record in $tmp/honest.json;
# forge TASK MEMBER FILE writes there, with git plumbing alone, task TASK
# whose one record is H's assessment with the body member MEMBER holding
# FILE's text (JSON). timed BUILD DIR ARGS... runs `git reason ARGS` in
# DIR with BUILD's program, cut at $cap seconds, and sets code, wall,
# cpu (user + system, git's processes included) and rss (peak, MB).
attacker() {
  git init -q "$tmp/attacker"
  (cd "$tmp/attacker" && PATH="$tmp/after:$PATH" git reason assess H --subject 'Session store' \
    --question 'Which store?' --materiality minor --reversibility reversible >/dev/null)
  name=$(git -C "$tmp/attacker" ls-tree --name-only refs/reasoning/tasks/H:records)
  git -C "$tmp/attacker" cat-file blob "refs/reasoning/tasks/H:records/$name" >"$tmp/honest.json"
}
forge() {
  awk -v task="$1" -v m="$2" -v xf="$3" 'BEGIN { getline x <xf }
    /"task": "H"/ { sub(/"H"/, "\"" task "\"") }
    /"body": \{/ { sub(/\{/, "{\"" m "\": " x ",") } { print }' "$tmp/honest.json" >"$tmp/forged.json"
  blob=$(git -C "$tmp/attacker" hash-object -w "$tmp/forged.json")
  records=$(printf '100644 blob %s\t%s\n' "$blob" "$name" | git -C "$tmp/attacker" mktree)
  root=$(printf '040000 tree %s\trecords\n' "$records" | git -C "$tmp/attacker" mktree)
  git -C "$tmp/attacker" update-ref "refs/reasoning/tasks/$1" \
    "$(printf 'assessment: forged\n\nReason-Task: %s\n' "$1" | git -C "$tmp/attacker" commit-tree "$root")"
}
timed() {
  code=0
  (b=$1 && cd "$2" && shift 2 && PATH="$tmp/$b:$PATH" /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" \
    timeout "$cap" git reason "$@" >/dev/null 2>&1) || code=$?
  set -- $(tail -n1 "$tmp/time")
  wall=$1 cpu=$(echo "$2 $3" | awk '{ print $1 + $2 }') rss=$(($4 / 1024))
}
