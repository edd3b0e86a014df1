#!/bin/sh
# The MCP server in one process: a cycle of seven appends (assess, plan,
# conclude, validate, disagree, resolve, attempt) through the running server
# against the same appends through the command line's code path and
# straight through the writer, interleaved in one run; and tools/list.
# Medians of wall time, CPU time per append, and ratios.
# The benchmarks live beside the server (they need its internal package):
# cmd/git-reason/internal/mcpserver/bench_test.go.
# Usage: bench/mcp/run.sh [cycles]   (default 30 cycles = 210 appends per path)
set -eu
cd "$(dirname "$0")/../.."
echo "load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
exec go test ./cmd/git-reason/internal/mcpserver -run '^$' -bench . -benchtime "${1:-30}x" -count 1
