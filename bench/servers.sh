# Sourced, after twobuilds.sh, by the benchmarks that run servers of a
# revision and of the work tree, once they have made $tmp (and will
# remove it). servers REV: both builds of ./cmd/... (twobuilds), the
# servers' token in GIT_REASON_MCP_TOKEN, and $tmp/repo, a repository of
# one empty commit.
# start BIN VERB ARGS...: git-reason of build BIN run as VERB ARGS in
# $tmp/repo, $pid its process, $url where it listens once it says so;
# stop: Ctrl-C to it, waited for. A server still running when the
# benchmark exits is killed, and $tmp removed.
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
start() {
  bin=$1
  shift
  rm -f "$tmp/err" # the last server's line is not this one's
  (cd "$tmp/repo" && exec "$tmp/$bin/git-reason" "$@" 2>"$tmp/err") &
  pid=$!
  i=0
  until url=$(grep -o 'http://[^ ]*' "$tmp/err" 2>/dev/null) && [ -n "$url" ]; do
    i=$((i + 1))
    [ "$i" -lt 200 ] || { cat "$tmp/err"; exit 1; }
    sleep 0.05
  done
}
stop() { kill -INT "$pid"; wait "$pid" 2>/dev/null || true; pid=; }
servers() {
  twobuilds "$1" ./cmd/...
  export GIT_REASON_MCP_TOKEN=bench-token-0123456789abcdef
  git init -q "$tmp/repo"
  git -C "$tmp/repo" commit -q --allow-empty -m start
}
