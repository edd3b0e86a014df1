#!/bin/sh
# Times whole-process `git reason assess` against `git notes append`, the
# same write in repositories of 100, 10,000 and 100,000 records, and
# `git reason status` of a 1,000-record task and of every task, and
# `git reason context` of a ten-commit branch over every task of the
# largest repository; prints medians and ratios.
# Run from anywhere in the module; arguments go to the program
# (-runs N, -sizes A,B,C, -status N, -dir DIR to keep and reuse the
# generated repositories, -cpuprofile DIR to profile what misses its target,
# -baseline REV to time assess as built from REV in the same rounds,
# -baseline-tags TAGS to build that revision with TAGS (by default the build
# under test's tags; "" for a plain go build),
# -baseline-pkg ./cmd/git-reason--net to build it as one binary with the
# network verbs linked in,
# -only startup to time only --version, hello world and the startup floor,
# -instructions N to count the instructions of start-up and of assess under
# cachegrind too).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/write "$@"
