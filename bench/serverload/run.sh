#!/bin/sh
# What one hostile request costs a running server, as built from REV and
# from the work tree, ROUNDS rounds alternating: the server's peak RSS
# (VmHWM) and CPU seconds (user + system) after each request, each request
# sent to a server of its own (started, sent an honest initialize, then the
# request, then stopped), and the answer's first 150 characters.
#   mcp --http (bodies up to 1 MiB, the endpoint's cap):
#     honest   tools/call status {"task": "T"}
#     deep     tools/call status, member "x": 520 arrays nested 990 deep
#              (the SDK refuses a message nested past 1,000)
#     wide     tools/call status, member "x": 340,000 empty arrays
#     meta     tools/call status {"task": "T"}, _meta as deep as "deep"
#     huge     tools/call assess, its needs 100 numbers 1e999999,
#              2e999999, ... (distinct: uniqueItems reads each one)
#   mcp over stdio (a line up to the SDK's 16 MiB): deep and wide again,
#     16 times as large, as one line given to 'git reason mcp'
#   serve (bodies up to 4 MiB): a review request whose evidence is
#     1,300,000 empty strings
# Usage: bench/serverload/run.sh [REV] [ROUNDS]   (REV: 9684cbb; ROUNDS: 3)
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-9684cbb} rounds=${2:-3}
tmp=$(mktemp -d)
. bench/twobuilds.sh
. bench/servers.sh
servers "$rev"

# rep N TEXT: TEXT N times, separated by commas
rep() { awk -v n="$1" -v s="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", (i ? "," : ""), s }'; }
# nums N: 1e999999,2e999999,... N numbers
nums() { awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "%s%de999999", (i > 1 ? "," : ""), i }'; }
# nest DEPTH: arrays nested DEPTH deep
nest() { awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "["; for (i = 0; i < n; i++) printf "]" }'; }
call() { # call ID TOOL ARGS [META]: a tools/call message
  printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{%s"name":"%s","arguments":%s}}' "$1" "${4:+\"_meta\":$4,}" "$2" "$3"
}
d=$(nest 990)
call 2 status '{"task":"T"}' >"$tmp/honest"
call 2 status "{\"task\":\"T\",\"x\":[$(rep 520 "$d")]}" >"$tmp/deep"
call 2 status "{\"task\":\"T\",\"x\":[$(rep 340000 '[]')]}" >"$tmp/wide"
call 2 status '{"task":"T"}' "{\"x\":[$(rep 520 "$d")]}" >"$tmp/meta"
call 2 assess "{\"task\":\"T\",\"subject\":\"s\",\"question\":\"q\",\"materiality\":\"minor\",\"reversibility\":\"reversible\",\"needs\":[$(nums 100)]}" >"$tmp/huge"
call 2 status "{\"task\":\"T\",\"x\":[$(rep 8300 "$d")]}" >"$tmp/stdio-deep"
call 2 status "{\"task\":\"T\",\"x\":[$(rep 5400000 '[]')]}" >"$tmp/stdio-wide"
printf '{"request":{"subject":"s","question":"q","evidence":[%s]}}' "$(rep 1300000 '""')" >"$tmp/peer-evidence"
for f in honest deep wide meta huge stdio-deep stdio-wide peer-evidence; do
  echo "$f: $(wc -c <"$tmp/$f") bytes"
done
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# cost: the server $pid's peak RSS in MB and CPU seconds
cost() {
  hwm=$(awk '/^VmHWM/ { print int($2 / 1024) }' "/proc/$pid/status")
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$pid/stat")
  echo "$cpu $hwm"
}
post() { # post URL FILE [SESSION]: the answer's body
  curl -sS -m 600 -H "Authorization: Bearer $GIT_REASON_MCP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${3:+-H "Mcp-Session-Id: $3"} ${3:+-H 'Mcp-Protocol-Version: 2025-06-18'} \
    -D "$tmp/headers" --data-binary "@$2" "$1"
}
show() { printf '%-6s %-7s %-14s %8s %8s  %s\n' "$@"; }

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
show round build request 'CPU s' 'RSS MB' answer
for r in $(seq "$rounds"); do
  for v in before after; do
    for f in honest deep wide meta huge; do
      start "$v" mcp --http 127.0.0.1:0
      printf '%s' "$init" >"$tmp/init"
      printf '%s' "$inited" >"$tmp/inited"
      post "$url" "$tmp/init" >/dev/null
      session=$(awk -F': ' 'tolower($1) == "mcp-session-id" { sub(/\r$/, "", $2); print $2 }' "$tmp/headers")
      post "$url" "$tmp/inited" "$session" >/dev/null
      answer=$(post "$url" "$tmp/$f" "$session" | tr -d '\n' | sed 's/^.*"text":"//' | cut -c1-150)
      show "$r" "$v" "http $f" $(cost) "$answer"
      stop
    done
    for f in stdio-deep stdio-wide; do
      { printf '%s\n%s\n' "$init" "$inited"; cat "$tmp/$f"; echo; } >"$tmp/in"
      answer=$( (cd "$tmp/repo" && /usr/bin/time -f '%U %S %M' -o "$tmp/time" "$tmp/$v/git-reason" mcp <"$tmp/in" 2>/dev/null) |
        tail -n1 | sed 's/^.*"text":"//' | cut -c1-150)
      show "$r" "$v" "$f" "$(awk '{ printf "%.2f", $1 + $2 }' "$tmp/time")" "$(awk '{ print int($3 / 1024) }' "$tmp/time")" "$answer"
    done
    start "$v" serve --listen 127.0.0.1:0 --token-env GIT_REASON_MCP_TOKEN
    answer=$(post "$url" "$tmp/peer-evidence" | cut -c1-150)
    show "$r" "$v" "serve evidence" $(cost) "$answer"
    stop
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
