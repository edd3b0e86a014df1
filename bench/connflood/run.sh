#!/bin/sh
# What connections that never send a byte (no token needed) cost
# 'git reason serve', as built from REV and from the work tree: for each
# batch held at once (-n), the server's open files and RSS and how long
# an honest request waits, then the same with the server's open files
# capped at FDS (prlimit, as a laptop's limit may be), where the
# flood can take every descriptor the process has.
# Usage: bench/connflood/run.sh [REV] [FDS]   (REV: 90a44b4; FDS: 4096)
set -eu
cd "$(dirname "$0")/../.."
rev=${1:-90a44b4} fds=${2:-4096}
. bench/twobuilds.sh
. bench/servers.sh # its trap removes $tmp
tmp=$(mktemp -d)
go build -o "$tmp/connflood" ./bench/connflood
servers "$rev"
for b in before after; do
  echo "== $b: serve, open files $(ulimit -n)"
  start "$b" serve --listen 127.0.0.1:0 --token-env GIT_REASON_MCP_TOKEN
  addr=${url#http://}
  "$tmp/connflood" -addr "${addr%%/*}" -pid "$pid" -token "$GIT_REASON_MCP_TOKEN" -n 0,100,1000,5000,10000,19000
  stop
  echo "== $b: serve, open files $fds"
  start "$b" serve --listen 127.0.0.1:0 --token-env GIT_REASON_MCP_TOKEN
  prlimit --pid "$pid" --nofile="$fds:$fds"
  addr=${url#http://}
  "$tmp/connflood" -addr "${addr%%/*}" -pid "$pid" -token "$GIT_REASON_MCP_TOKEN" -n "0,100,1000,$((fds + 1000))"
  stop
  echo "   accept errors logged: $(grep -c 'Accept error' "$tmp/err" || true)"
done
