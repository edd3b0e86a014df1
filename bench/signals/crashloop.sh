#!/bin/bash
# bench/signals/crashloop.sh [RUNS] [SIGNAL] [MAXMS]: sends SIGNAL (default
# TERM) to the process group of `git-reason close T1 --by N1` at a random
# moment within MAXMS ms (default 120) of its start, RUNS times (default
# 200), each in a fresh copy of a two-task repository, and counts the exit
# statuses: 143/129/130 (died of the signal) or 0 (it had finished) are
# expected; 133 with "fatal: morestack on gsignal" on stderr, 139 or a
# silent 2 are the Go runtime's rare failures while the process dies of
# the signal, seen a few times in a thousand runs, cause not found.
# stderr of each such run is kept as crash.N in the printed directory.
# git-reason must be on PATH.
set -u
N=${1:-200}; SIG=${2:-TERM}; MAX=${3:-120}
W=$(mktemp -d /tmp/crashloop.XXXXXX)
export HOME=$W/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
mkdir -p "$HOME"; git config --global init.defaultBranch main
A="--materiality minor --reversibility reversible --question q"
cd "$W" && git init -q t && git -C t reason assess T1 --subject s $A >/dev/null && git -C t reason assess N1 --subject s $A >/dev/null
for i in $(seq 1 "$N"); do
	rm -rf r; cp -a t r; cd r || exit 1
	d=$(awk -v m="$MAX" -v r=$RANDOM 'BEGIN{printf "%.3f", m*r/32768/1000}')
	setsid sh -c "exec git-reason close T1 --by N1" > ../out 2> ../err & pid=$!
	sleep "$d"; kill -"$SIG" -- -$pid 2>/dev/null; wait $pid; rc=$?
	cd "$W" || exit 1
	echo "$i d=$d rc=$rc $(grep -m1 -i 'fatal\|panic' err)" >> runs
	case $rc in 0|129|130|143) ;; *) cp err "crash.$i" ;; esac
done
echo "$W: $N runs of close, $SIG to its group within $MAX ms; exit statuses:"
awk '{print $3}' runs | sort | uniq -c
