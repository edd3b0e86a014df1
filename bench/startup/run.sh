#!/bin/sh
# Times hello world alone, hello world linking each group of git-reason's
# dependencies (blank imports: their initialisation runs), and
# git-reason --version as go build makes it, in shuffled rounds; prints
# each one's median wall, CPU and minor page faults against hello world's.
# Run from anywhere in the module; arguments go to the program (-runs N,
# -only REGEXP, -no-groups, -group NAME=PKG,PKG and -variant tags=T |
# cgo=0 | ldflags=F, both repeatable, -instructions N to count
# instructions under valgrind too).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/startup "$@"
