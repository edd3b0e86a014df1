#!/bin/sh
# Wall time of the test suite: `go test -short ./...` (the quick run a
# developer makes) and `go test ./...` (what .ci/run runs), both with
# -count=1 so no cached result counts. The test binaries are built first,
# so the figures are test time, not compile time. Prints the load average
# next to each figure (this machine is shared), the time of each package
# and the slowest tests.
# Usage: bench/tests/run.sh [short|full|both]   (default both)
# Environment: P=N passes -p N to go test (one package at a time with P=1,
# which makes per-package figures comparable on a loaded machine);
# TOP=N lists the N slowest tests (default 15); OUT=DIR keeps the
# go test -json logs there.
set -eu
cd "$(dirname "$0")/../.."
forms=${1:-both}
case $forms in
short | full) ;;
both) forms="short full" ;;
*) echo "usage: bench/tests/run.sh [short|full|both]" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
par=""
[ -n "${P:-}" ] && par="-p $P"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
now() { date +%s.%N; }

echo "cpus: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?)  $(go version)  ${par:-default -p}"
echo "== building the test binaries (not timed)"
go test -count=1 -run '^$' ./... >/dev/null
go build -o "$out/summary" ./bench/tests

status=0
for form in $forms; do
  flags="-timeout 30m"
  [ "$form" = short ] && flags="$flags -short"
  before=$(load)
  start=$(now)
  # shellcheck disable=SC2086 # flags and par are lists of words
  go test -count=1 $par $flags -json ./... >"$out/$form.json" || status=1
  end=$(now)
  echo "== go test $par $flags ./...: $(awk "BEGIN{printf \"%.1f\", $end - $start}") s wall (load before: $before; after: $(load))"
  "$out/summary" -top "${TOP:-15}" <"$out/$form.json"
done
echo "logs: $out"
exit $status
