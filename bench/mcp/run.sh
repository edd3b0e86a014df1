#!/bin/sh
# The MCP server in one process: a cycle of seven appends (assess, plan,
# conclude, validate, disagree, resolve, attempt) through the running server
# against the same appends through the command line's code path and
# straight through the writer, interleaved in one run; and tools/list.
# Medians of wall time, CPU time per append, and ratios; tools/list's 90th
# percentile too. The load average is printed before and after.
# The benchmarks live beside the server (they need its internal package):
# cmd/git-reason/internal/mcpserver/bench_test.go.
# Usage: bench/mcp/run.sh [cycles] [pattern]
#   cycles: 30 by default (210 appends per path; also the number of
#   tools/list calls); pattern: which benchmarks, e.g. ToolsList (default all)
set -eu
cd "$(dirname "$0")/../.."
load() { echo "load $1: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"; }
load before
go test ./cmd/git-reason/internal/mcpserver -run '^$' -bench "${2:-.}" -benchtime "${1:-30}x" -count 1
load after
