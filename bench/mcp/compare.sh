#!/bin/sh
# The MCP server's benchmarks (bench_test.go beside the server) at a base
# revision and at the work tree, interleaved in one run: ROUNDS rounds,
# each running both builds (the order alternating), so that both see the
# same machine load. Each build runs the work tree's bench_test.go (the
# benchmarks only use what the base has too). Prints every metric's median
# over the rounds for each build and the ratio new/base, and the load
# average before and after. The repositories are made under TMPDIR:
# TMPDIR=/dev/shm measures the server without the disk's file system
# (a tmpfs), where creating a file costs what it costs everywhere.
# Usage: bench/mcp/compare.sh BASE [ROUNDS] [CYCLES] [PATTERN]
#   BASE: a revision (e.g. main); ROUNDS: 7; CYCLES: -benchtime, 30;
#   PATTERN: -bench, default 'CycleMCPAgainstCLI|MCPLongTask'
set -eu
cd "$(dirname "$0")/../.."
base=$1 rounds=${2:-7} cycles=${3:-30} pattern=${4:-'CycleMCPAgainstCLI|MCPLongTask'}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkg=cmd/git-reason/internal/mcpserver
git archive "$base" | tar -x -C "$work" --one-top-level=base
cp "$pkg/bench_test.go" "$work/base/$pkg/bench_test.go"
(cd "$work/base" && nice -n 10 go test -c -o "$work/base.test" "./$pkg")
nice -n 10 go test -c -o "$work/new.test" "./$pkg"
echo "base $(git rev-parse --short "$base"), new $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' + changes')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$rounds" ]; do
  i=$((i + 1))
  order="base new"
  [ $((i % 2)) -eq 0 ] && order="new base"
  for b in $order; do
    "$work/$b.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "${cycles}x" -test.count 1 |
      awk -v b="$b" '/^Benchmark/ { sub(/-[0-9]+$/, "", $1); for (k = 5; k < NF; k += 2) print b, $1, $(k+1), $k }' >>"$work/metrics"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
sort -k2,2 -k3,3 -k1,1 -k4,4g "$work/metrics" | awk '
  function flush() { if (n > 0) { m[key] = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; keys[key] = 1 }; n = 0 }
  { k = $1 " " $2 " " $3; if (k != key) { flush(); key = k }; v[++n] = $4 }
  END {
    flush()
    for (k in keys) { split(k, p, " "); if (p[1] == "base") { nk = "new " p[2] " " p[3]; if (nk in m) {
      printf "%-28s %-24s base %9.3f  new %9.3f  new/base %.2f\n", p[2], p[3], m[k], m[nk], (m[k] ? m[nk] / m[k] : 0) } } }
  }' | sort
