#!/bin/sh
# Fuzz the three servers' whole handler chains, one after another, each
# on one core for TIME: serve (ops' FuzzServe), mcp --http (mcpserver's
# FuzzHTTP) and the Reasoning page (web's FuzzWeb). Each prints its
# execs as it goes; an input that fails is written under the package's
# testdata/fuzz/, where plain go test runs it from then on. A new
# interesting input is minimized for 5 s at most (60 s by default, which
# on mcp --http's slower inputs held the run at 0 execs/s for minutes).
# Usage: bench/fuzzservers/run.sh [TIME]   (TIME: 9m)
set -eu
cd "$(dirname "$0")/../.."
t=${1:-9m}
for target in ops:FuzzServe mcpserver:FuzzHTTP web:FuzzWeb; do
  echo "== ${target#*:} for $t"
  go test "./cmd/git-reason/internal/${target%%:*}/" -run '^$' -fuzz "^${target#*:}\$" -fuzztime "$t" -fuzzminimizetime 5s -parallel 1 -timeout 0
done
