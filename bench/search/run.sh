#!/bin/sh
# Measures git reason search and log --grep at 20,000 tasks (two records
# each): the first search (builds the index), a search with nothing moved,
# one after a task moved, and log --grep (with a literal, and -i), next to
# git reason version. Run from anywhere in the module; arguments go to the
# program (-runs N, -tasks N, -dir DIR to keep and reuse the repository).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/search "$@"
