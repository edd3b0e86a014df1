#!/bin/bash
# bench/signals/plaingit.sh SCENARIO RUNS "SIGNALS" [group|pid]: the git
# command that git reason runs in a scenario of run.sh, run by plain git
# and killed as run.sh kills git reason (a random moment, the signals in
# turn), to tell git's own leftovers from git reason's: push (git push of
# 60 tasks to a local bare repository; receive-pack's
# tmp_objdir-incoming-* and tmp_pack_*) and fetch3000 (git fetch of the
# 3,000 tasks of $SCALE, as pull does; a remote-tracking ref's lock).
# Prints each run and how many left a lock or a temporary file. git-reason
# must be on PATH (it makes push's tasks). Note that a command started with
# & by a script has SIGINT ignored: git removes its temporary files on
# SIGINT and goes on; TERM and HUP show what a signal does.
set -u
S=$1; RUNS=$2; SIGS=$3; MODE=${4:-group}
W=$(mktemp -d /tmp/plaingit.XXXXXX)
export HOME=$W/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
mkdir -p $HOME; git config --global init.defaultBranch main
A="--materiality minor --reversibility reversible --question q"
mkdir -p $W/t; cd $W/t
case $S in
push)
	git init -q c; git init -q --bare r.git
	for i in $(seq 1 60); do git -C c reason assess T$i --subject s$i $A >/dev/null; done
	git -C c remote add origin ../r.git
	specs=$(for i in $(seq 1 60); do printf 'refs/reasoning/tasks/T%d:refs/reasoning/tasks/T%d ' $i $i; done)
	CMD="git push --porcelain --no-recurse-submodules origin $specs" ;;
fetch3000)
	git init -q --bare r.git; git -C "$SCALE" push -q "$PWD/r.git" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
	git init -q c; git -C c remote add origin ../r.git
	CMD="git -c fetch.fsckObjects=true fetch --quiet --no-tags --no-write-fetch-head --no-recurse-submodules --no-filter --prune origin +refs/reasoning/tasks/*:refs/reasoning/remotes/origin/*" ;;
esac
cd $W; cp -a t r; cd r/c; s=$(date +%s%N); eval "$CMD" >/dev/null 2>&1; DUR=$((($(date +%s%N)-s)/1000000)); cd $W; rm -rf r
echo "$S plain git: uninterrupted $DUR ms"
bad=0
for i in $(seq 1 $RUNS); do
	n=$(echo $SIGS | wc -w); sig=$(echo $SIGS | cut -d' ' -f$((i % n + 1)))
	d=$(awk -v m=$DUR -v r=$RANDOM 'BEGIN{printf "%.3f", m*1.2*r/32768/1000}')
	rm -rf $W/r; cp -a $W/t $W/r; cd $W/r/c
	setsid sh -c "exec $CMD" >../out 2>../err & pid=$!
	sleep $d
	if [ $MODE = group ]; then kill -$sig -- -$pid 2>/dev/null; else kill -$sig $pid 2>/dev/null; fi
	wait $pid; rc=$?; sleep 0.3; cd $W/r
	left=$(find c/.git r.git -name '*.lock' -o -path '*objects*' \( -name 'tmp*' -o -name 'incoming-*' \) 2>/dev/null | head -3 | tr '\n' ' ')
	[ -n "$left" ] && bad=$((bad+1))
	echo "$S $i $sig $MODE d=$d rc=$rc ${left:+LEFT: $left}"
done
echo "$S plain git: $RUNS runs, $bad left a lock or tmp file"
cd /; rm -rf $W
