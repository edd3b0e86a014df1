#!/bin/sh
# Counts the user-space instructions of one `git reason assess` (cachegrind,
# median of N runs), each in a fresh copy of one small repository holding a
# task of ten assessments, for the git-reason binary BIN. Run it for two
# builds to compare a change (load-independent; needs valgrind).
# Usage: bench/instructions/run.sh BIN [N]
set -eu
BIN=$1; N=${2:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
git init -q "$work/base" && cd "$work/base" && git commit -q --allow-empty -m init
for i in 1 2 3 4 5 6 7 8 9 10; do
  "$BIN" assess T-1 --subject "s$i" --question "q?" --materiality trivial --reversibility reversible >/dev/null
done
for i in $(seq "$N"); do
  cp -a "$work/base" "$work/c$i"; cd "$work/c$i"
  # RDTSCP off: valgrind does not know it and kills the Go program.
  GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$BIN" assess T-1 --subject x --question "q?" --materiality trivial --reversibility reversible 2>&1 |
    awk '/I *refs/ {gsub(",", "", $NF); print $NF}'
done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)], "instructions (median of", NR, "runs)"}'
