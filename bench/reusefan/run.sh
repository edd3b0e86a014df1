#!/bin/sh
# Tasks reusing other tasks' conclusions in numbers (bench/reusefan/main.go:
# fan-in, fan-out, chain), as built from each REV and from the work tree.
# Usage: bench/reusefan/run.sh [TASKS] [RECORDS] [ROUNDS] [REV...]
#        (200, 400, 5, 90a44b4 7e6f0ea)
set -eu
cd "$(dirname "$0")/../.."
tasks=${1:-200} records=${2:-400} rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- 90a44b4 7e6f0ea
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
builds=
for rev in "$@"; do
  mkdir "$tmp/src-$rev" "$tmp/$rev"
  git archive "$rev" | tar -x -C "$tmp/src-$rev"
  (cd "$tmp/src-$rev" && go build -tags urfave_cli_no_docs,netgo -o "$tmp/$rev/" ./cmd/git-reason)
  builds="$builds$tmp/$rev,"
  echo "# build $(($(echo "$builds" | tr -cd , | wc -c) - 1)): $rev"
done
mkdir "$tmp/worktree"
go build -tags urfave_cli_no_docs,netgo -o "$tmp/worktree/" ./cmd/git-reason
echo "# build $#: the work tree"
go run ./bench/reusefan -builds "$builds$tmp/worktree" -tasks "$tasks" -records "$records" -rounds "$rounds"
