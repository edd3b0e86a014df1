#!/bin/sh
# What the JSON Schema library's package initialisation costs a write:
# santhosh-tekuri/jsonschema/v5 compiles the metaschemas of all five
# drafts in its init, in every process that links it, before main runs.
#
# This builds git-reason against a copy of the library (the version go.mod
# names) with lazymeta.patch applied, which compiles a draft's metaschema
# when a schema of that draft is first compiled, and runs the write
# benchmark on that build with the unpatched HEAD as -baseline: the same
# rounds, so "× base" and the ratio lines compare the two. Nothing is
# shipped patched: this is the measurement behind docs/PERFORMANCE.md's
# "Levers measured and not shipped".
#
# Usage: sh bench/write/lazymeta.sh [RUNS] [-git-bug BINARY ...]
#   (arguments after RUNS go to the benchmark)
set -eu
runs=${1:-21}
[ $# -gt 0 ] && shift
root=$(git rev-parse --show-toplevel)
cd "$root"
mod=$(go list -m -f '{{.Dir}}' github.com/santhosh-tekuri/jsonschema/v5)
tmp=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$tmp/wt" >/dev/null 2>&1 || true; chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
cp -R "$mod" "$tmp/jsonschema"
chmod -R u+w "$tmp/jsonschema"
(cd "$tmp/jsonschema" && git apply -p1 "$root/bench/write/lazymeta.patch")
git worktree add -q --detach "$tmp/wt" HEAD
cd "$tmp/wt"
go mod edit -replace "github.com/santhosh-tekuri/jsonschema/v5=$tmp/jsonschema"
go run ./bench/write -runs "$runs" -sizes 100 -baseline "$(git rev-parse --short HEAD)" "$@"
