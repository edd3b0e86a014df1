#!/bin/sh
# Lines of Go per top-level folder, and in the packages the architecture work reshaped (gitstore/,
# advisor/, settings, where reading git's configuration went from gitstore/,
# the neutrality engine before and after its move, and the part
# of it left in the operations layer), at each revision named, without and
# with tests; and the duplicate pairs of the whole tree when the
# `duplicates` scanner is on PATH (it reads a working tree, so each
# revision is checked out in a temporary worktree).
# Usage: bench/lines/run.sh [REV...]   (default: 9194c93 HEAD; 9194c93 is
# main before the settings, decoding, neutrality and consult changes)
# With NOIMPORTS=1 the duplicates scan also runs with every Go import
# block blanked (its lines kept, empty): the scanner counts two files that
# import the same six packages as a pair, and the difference between the
# two counts is the pairs that are import lists alone.
set -eu
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- 9194c93 HEAD
paths="gitstore advisor cmd/git-reason/internal/settings cmd/git-reason/internal/neutrality policy/neutrality cmd/git-reason/internal/ops/neutrality.go"
lines() { # REV FILTER PATH: lines of the .go files under PATH at REV that FILTER keeps
  git ls-tree -r --name-only "$1" -- "$3" | grep '\.go$' | grep -v "$2" |
    while read -r f; do git show "$1:$f"; done | wc -l
}
printf '%-10s %-40s %9s %11s\n' rev path non-test with-tests
for rev in "$@"; do
  for p in $paths; do
    [ -n "$(git ls-tree -r --name-only "$rev" -- "$p" | head -1)" ] || continue
    printf '%-10s %-40s %9d %11d\n' "$(git rev-parse --short "$rev")" "$p" \
      "$(lines "$rev" '_test\.go$' "$p")" "$(lines "$rev" '^$' "$p")"
  done
done
# Every top-level folder, non-test lines of Go (issue 23's yardstick).
printf '\n%-10s %-40s %9s %11s\n' rev folder non-test with-tests
for rev in "$@"; do
  for p in $(git ls-tree -d --name-only "$rev" | grep -v '^\.'); do
    [ -n "$(git ls-tree -r --name-only "$rev" -- "$p" | grep '\.go$' | head -1)" ] || continue
    printf '%-10s %-40s %9d %11d\n' "$(git rev-parse --short "$rev")" "$p" \
      "$(lines "$rev" '_test\.go$' "$p")" "$(lines "$rev" '^$' "$p")"
  done
done
if command -v duplicates >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  trap 'git worktree remove --force "$tmp/wt" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
  for rev in "$@"; do
    git worktree add --detach "$tmp/wt" "$rev" >/dev/null 2>&1
    echo "duplicates at $(git rev-parse --short "$rev"): $(cd "$tmp/wt" && duplicates --seconds 120 | head -1)"
    if [ "${NOIMPORTS:-}" = 1 ]; then
      (cd "$tmp/wt" && git ls-files '*.go' | python3 -c '
import re, sys
for p in sys.stdin.read().split():
    s = open(p).read()
    s = re.sub(r"\nimport \((?:.|\n)*?\n\)", lambda m: "\nimport ()" + "\n" * (m.group(0).count("\n") - 1), s, count=1)
    open(p, "w").write(s)
')
      echo "duplicates at $(git rev-parse --short "$rev"), import blocks blanked: $(cd "$tmp/wt" && duplicates --seconds 120 | head -1)"
    fi
    git worktree remove --force "$tmp/wt" >/dev/null 2>&1
  done
fi
