#!/bin/sh
# What the sessions of 'git reason mcp --http' cost a running server, as
# built from REV and from the work tree, ROUNDS rounds alternating: a host
# that initializes in a loop and never ends a session (no DELETE), as a
# buggy agent host reconnecting does. Each round starts the server, opens
# one session (initialize, then notifications/initialized), reads its RSS
# (VmRSS), opens SESSIONS more the same way, and reads the RSS again: the
# growth, per 1,000 sessions opened, and the peak (VmHWM).
# Usage: bench/mcpsessions/run.sh [REV] [ROUNDS] [SESSIONS]
#        (REV: 06df0ee; ROUNDS: 3; SESSIONS: 1000)
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-06df0ee} rounds=${2:-3} sessions=${3:-1000}
tmp=$(mktemp -d)
. bench/twobuilds.sh
. bench/servers.sh
servers "$rev"
printf '%s' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' >"$tmp/init"
printf '%s' '{"jsonrpc":"2.0","method":"notifications/initialized"}' >"$tmp/inited"

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; } # kB
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$pid/status"; } # kB
post() { # post FILE [SESSION]
  curl -sS -m 60 -o /dev/null -H "Authorization: Bearer $GIT_REASON_MCP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${2:+-H "Mcp-Session-Id: $2"} ${2:+-H 'Mcp-Protocol-Version: 2025-06-18'} \
    -D "$tmp/headers" --data-binary "@$1" "$url"
}
open() { # open: one session, never ended
  post "$tmp/init"
  post "$tmp/inited" "$(awk -F': ' 'tolower($1) == "mcp-session-id" { sub(/\r$/, "", $2); print $2 }' "$tmp/headers")"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-7s %10s %10s %12s %10s\n' round build 'RSS1 kB' 'RSSN kB' 'kB/1000' 'peak kB'
for r in $(seq "$rounds"); do
  for v in before after; do
    start "$v" mcp --http 127.0.0.1:0
    open
    a=$(rss)
    i=0
    while [ "$i" -lt "$sessions" ]; do open; i=$((i + 1)); done
    b=$(rss)
    printf '%-6s %-7s %10s %10s %12s %10s\n' "$r" "$v" "$a" "$b" $(((b - a) * 1000 / sessions)) "$(hwm)"
    stop
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
