#!/bin/bash
# loadflakes.sh REV [HOGS [SCALE]]: runs the tests whose pass depended on
# timing, as of REV and as in the work tree, at once, while HOGS busy loops
# (default 6) and both test runs share CPU 0 at nice 19 (a loaded machine
# without slowing anything else), and prints how many runs failed of each.
# SCALE multiplies the run counts (default 1). Run from the repository's top.
set -u
rev=$1 hogs=${2:-6} scale=${3:-1}
top=$(pwd)
tmp=$(mktemp -d)
trap 'kill "${loops[@]}" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir "$tmp/wt"
git archive "$rev" | tar -x -C "$tmp/wt"
tests=(
	"cmd/git-reason;^TestServersStopOnSIGTERM$;4"
	"cmd/git-reason/internal/mcpserver;^(TestBusySessionNeverClosedForAnother|TestCallEndsWithItsRequest)$;60"
	"advisor;^(TestConsultAsksConcurrently|TestConsultDeadlineRecordsTimeout|TestConsultCancelRecordsCancelled|TestConsultResultsInPlanOrder|TestLargeOverlayLoadsInBoundedTime)$;10"
	"advisor/transport;^(TestExecKillsLeftovers|TestExecContract)$;6"
	"cmd/git-reason/internal/guard;^(TestSlowHeadersCut|TestSlowBodyCut|TestIdleConnectionClosed)$;10"
)
for side in before after; do
	src=$top
	[ $side = before ] && src=$tmp/wt
	for t in "${tests[@]}"; do
		pkg=${t%%;*}
		(cd "$src" && go test -c -o "$tmp/$side-${pkg//\//_}.test" "./$pkg") || exit 1
	done
done
loops=()
for i in $(seq "$hogs"); do
	nice -n 19 taskset -c 0 bash -c 'while :; do :; done' &
	loops+=($!)
done
runs=()
for side in before after; do
	src=$top
	[ $side = before ] && src=$tmp/wt
	for t in "${tests[@]}"; do
		IFS=";" read -r pkg re n <<<"$t"
		(cd "$src/$pkg" && nice -n 19 taskset -c 0 "$tmp/$side-${pkg//\//_}.test" -test.run "$re" \
			-test.count=$((n * scale)) -test.timeout=25m >"$tmp/$side-${pkg//\//_}.log" 2>&1) &
		runs+=($!)
	done
done
wait "${runs[@]}"
for side in before after; do
	for t in "${tests[@]}"; do
		IFS=";" read -r pkg re n <<<"$t"
		log=$tmp/$side-${pkg//\//_}.log
		echo "$side $pkg ($((n * scale)) runs): $(grep -c -- '^--- FAIL' "$log") failed"
		grep -h -- '^--- FAIL' "$log" | sed 's/ (.*//' | sort | uniq -c
	done
done
