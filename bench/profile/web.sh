#!/bin/sh
# Where the Reasoning page's time goes when its task list is shown after a
# record arrives: serves the repository bench/web kept (its -keep DIR, the
# repository repo-TASKS-RECORDS under it), then N times writes a record on
# a new task and fetches the list, with `perf record -g` (cpu-clock) on the
# serving git-reason process; prints each fetch's wall time and the
# functions by inclusive share of the server's samples. Needs perf and curl.
# Usage: bench/profile/web.sh DIR [N]   (DIR as given to bench/web -keep; default N 10)
set -eu
DIR=$1; N=${2:-10}
command -v perf >/dev/null || { echo "bench/profile: needs perf" >&2; exit 2; }
repo=$(ls -d "$DIR"/repo-* | head -n 1)
export HOME="$DIR/home" XDG_CONFIG_HOME="$DIR/home/.config" GIT_CONFIG_NOSYSTEM=1 PATH="$DIR/bin:$PATH"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$repo"
git reason status >/dev/null
git reason web --listen 127.0.0.1:0 2>"$work/web.err" &
gitpid=$!
for _ in $(seq 60); do grep -q 'token=' "$work/web.err" && break; sleep 1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*/?token=[0-9a-f]*' "$work/web.err" | head -n 1)
base=${url%%/?token*}
curl -s -c "$work/jar" -b "$work/jar" -L "$url" >/dev/null
curl -s -c "$work/jar" -b "$work/jar" "$base/" >/dev/null
server=$(tr -d ' ' </proc/$gitpid/task/$gitpid/children)
perf record -q -o "$work/perf.data" -e cpu-clock -F 2000 -g -p "$server" 2>/dev/null &
perfpid=$!
sleep 1
for i in $(seq "$N"); do
  git reason assess "T-profile-$$-$i" --subject "Arrived while serving" --question "Seen?" --materiality trivial --reversibility reversible >/dev/null
  start=$(date +%s%N)
  curl -s -o /dev/null -c "$work/jar" -b "$work/jar" "$base/"
  echo "task list after a record: $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
kill -INT "$perfpid"; wait "$perfpid" || true
kill -INT "$server"; wait "$gitpid" || true
perf report -i "$work/perf.data" --children --sort sym --stdio -g none 2>/dev/null |
  grep '%' | grep -v '^#' | grep -v '\[k\]' | grep -v 'runtime\.\|net/http' | head -n 40
