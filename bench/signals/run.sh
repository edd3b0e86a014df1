#!/bin/bash
# bench/signals/run.sh [RUNS] [SCENARIO...]: sends SIGTERM, SIGHUP and
# SIGINT (in turn) at random moments to git reason commands that move
# several refs or files, RUNS times per scenario (default 50), half of
# them to the process alone (kill PID) and half to its process group (as
# a terminal does), then checks each: the exit status (143/129/130, or 0
# when it had finished), no *.lock under .git, git fsck clean, git reason
# verify exits 0, no temporary file left in .git/objects or .git/reason,
# no process left running in the copy, and the same command run again
# succeeds and leaves the refs an uninterrupted run leaves. Scenarios:
# pull push sync pull-daemon push-daemon pull3000 status3000 verify3000
# close trust hooks assess-race. git-reason must be on PATH; it is run
# as git-reason, not through git (whose wrapper passes a signal on to it).
# SCALE names a clone of 3,000 tasks (bench/scale/run.sh -keep DIR -make
# -tasks 3000 makes DIR/w3000/clone).
set -u
RUNS=${1:-50}; shift || true
SCEN=${*:-pull push sync pull-daemon push-daemon pull3000 status3000 verify3000 close trust hooks assess-race}
W=$(mktemp -d /tmp/sigloop.XXXXXX)
export HOME=$W/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
mkdir -p "$HOME"
git config --global init.defaultBranch main
A="--materiality minor --reversibility reversible --question q"
PORT=$((20000 + RANDOM % 20000))
git daemon --export-all --enable=receive-pack --base-path="$W" --listen=127.0.0.1 --port=$PORT --reuseaddr "$W" 2>/dev/null &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null' EXIT

tasks() { # tasks DIR PREFIX N: N tasks in the repository DIR
	for i in $(seq 1 "$3"); do git -C "$1" reason assess "$2$i" --subject "s$i" $A >/dev/null; done
}
# make SCENARIO: the template $W/$1/t (run in $W/$1/t/$CWD) and CMD.
make() {
	local t=$W/$1/t; mkdir -p "$t"; cd "$t" || exit 1
	CWD=c; AGAIN=; STATE="git -C c for-each-ref refs/reasoning/tasks"
	case $1 in
	pull|pull-daemon|push|push-daemon|sync)
		git init -q c; git init -q --bare r.git
		case $1 in push*) tasks c T 60 ;; *) tasks c T 60; git -C c push -q ../r.git 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'; rm -rf c; git init -q c ;; esac
		[ $1 = sync ] && tasks c U 30
		case $1 in *-daemon) git -C c remote add origin "git://127.0.0.1:$PORT/$1/r/r.git" ;; *) git -C c remote add origin ../r.git ;; esac
		case $1 in pull*) CMD="git-reason pull origin" ;; push*) CMD="git-reason push origin"; STATE="git -C r.git for-each-ref" ;; sync) CMD="git-reason sync origin"; STATE="$STATE; git -C r.git for-each-ref" ;; esac ;;
	pull3000)
		git init -q --bare r.git; git -C "$SCALE" push -q "$PWD/r.git" 'refs/reasoning/tasks/*:refs/reasoning/tasks/*'
		git init -q c; git -C c remote add origin ../r.git; CMD="git-reason pull origin" ;;
	status3000|verify3000)
		cp -a "$SCALE" c; CMD="git-reason ${1%3000}" ;;
	close)
		git init -q c; tasks c T 1; tasks c N 1; CMD="git-reason close T1 --by N1"
		AGAIN="git-reason tasks | grep -q '^T1 .* closed ' || $CMD"; STATE="git -C c reason tasks | awk '{print \$1, \$2, \$3, \$4}'" ;;
	trust)
		git init -q c; mkdir -p c/.reason
		printf 'advisors:\n' > c/.reason/advisors.yaml
		for i in $(seq 1 20); do printf '  - id: a%d\n    capabilities: [review]\n' $i >> c/.reason/advisors.yaml; done
		CMD="git-reason trust"; STATE="git -C c reason trust --show" ;;
	hooks)
		git init -q c; CMD="git-reason hooks install"; STATE="ls -l c/.git/hooks | grep -v sample | awk '{print \$1, \$NF}'; cat c/.git/hooks/pre-push" ;;
	assess-race)
		git init -q c; tasks c T 1
		CMD="git-reason assess T1 --subject killed $A"
		STATE="git -C c reason verify >/dev/null && echo ok" ;;
	esac
	cd "$W/$1" || exit 1
	AGAIN=${AGAIN:-$CMD}
	# What an uninterrupted run leaves, and how long it takes (for the
	# delays); in r, where the runs are made, which a git:// URL names.
	cp -a t r; local s=$(date +%s%N); (cd r/$CWD && eval "$CMD") >/dev/null 2>&1; DUR=$((($(date +%s%N) - s) / 1000000))
	(cd r && eval "$STATE") > want 2>&1
	rm -rf r
}

left() { # processes whose working directory is under $1
	for p in /proc/[0-9]*; do
		case $(readlink "$p/cwd" 2>/dev/null) in "$1"/*) echo "${p#/proc/}: $(tr '\0' ' ' < "$p/cmdline")" ;; esac
	done
}

total=0; bad=0
for s in $SCEN; do
	make "$s"
	declare -A fails=(); n=0
	for i in $(seq 1 "$RUNS"); do
		sig=$(echo TERM HUP INT | cut -d' ' -f$((i % 3 + 1)))
		mode=pid; [ $((i % 2)) = 0 ] && mode=group
		d=$(awk -v m=$DUR -v r=$RANDOM 'BEGIN{printf "%.3f", m*1.2*r/32768/1000}')
		rm -rf r; cp -a t r; cd "r/$CWD" || exit 1
		if [ "$s" = assess-race ]; then
			git reason assess T1 --subject other $A > ../other.out 2>&1 & other=$!
		fi
		setsid sh -c "exec $CMD" > ../out 2> ../err & pid=$!
		sleep "$d"
		if [ $mode = group ]; then kill -"$sig" -- -$pid 2>/dev/null; else kill -"$sig" $pid 2>/dev/null; fi
		wait $pid; rc=$?
		[ "$s" = assess-race ] && { wait $other || echo "other writer failed: $(cat ../other.out)" >> ../err; }
		sleep 0.3
		cd "$W/$s/r" || exit 1
		f=()
		case $rc in 0|129|130|143) ;; *) grep -qi interrupt err || f+=("status $rc: $(tail -1 err)") ;; esac
		lk=$(find "$HOME" -name '*.lock'); [ -n "$lk" ] && f+=("lock home") && echo "$s $i $sig $mode d=$d rc=$rc locks: $lk" >> "$W/log"
		l=$(left "$W/$s/r"); [ -n "$l" ] && { f+=("left running"); echo "$s $i $sig $mode left: $l" >> "$W/log"; sleep 2; }
		for g in $CWD r.git; do
			[ -d $g ] || continue
			gd=$g/.git; [ -d $gd ] || gd=$g
			lk=$(find $gd -name '*.lock'); [ -n "$lk" ] && f+=("lock $g") && echo "$s $i $sig $mode d=$d rc=$rc locks: $lk" >> "$W/log"
			tmp=$(find $gd/objects $gd/reason -name 'tmp*' -o -name 'incoming-*' -o -name '*.tmp' -o -name '.tmp*' 2>/dev/null); [ -n "$tmp" ] && f+=("tmp $g") && echo "$s $i $sig $mode d=$d rc=$rc tmp: $tmp" >> "$W/log"
			git -C $g fsck --no-dangling --no-progress >fsck 2>&1 || { f+=("fsck $g"); echo "$s $i $sig $mode fsck: $(cat fsck)" >> "$W/log"; }
		done
		git -C $CWD reason verify >v 2>&1 || { f+=("verify"); echo "$s $i $sig $mode d=$d rc=$rc verify: $(tail -3 v)" >> "$W/log"; }
		if [ "$s" != assess-race ]; then
			(cd $CWD && eval "$AGAIN") > again 2>&1 || { f+=("again"); echo "$s $i $sig $mode d=$d rc=$rc again: $(tail -2 again)" >> "$W/log"; }
		fi
		eval "$STATE" > got 2>&1
		cmp -s got ../want || { f+=("state"); echo "$s $i $sig $mode d=$d rc=$rc state: $(diff got ../want | head -5)" >> "$W/log"; }
		n=$((n + 1)); total=$((total + 1))
		[ ${#f[@]} -gt 0 ] && bad=$((bad + 1))
		for k in "${f[@]}"; do fails[${k%%:*}]=$((${fails[${k%%:*}]:-0} + 1)); done
		echo "$s $i $sig $mode d=$d rc=$rc ${f[*]} | $(tail -1 err)" >> "$W/runs"
		cd "$W/$s" || exit 1
	done
	printf '%-12s %3d runs in %5d ms each, rc: %s; failures:' "$s" "$n" "$DUR" "$(grep "^$s " "$W/runs" | sed 's/.*rc=\([0-9]*\).*/\1/' | sort | uniq -c | tr -s ' \n' ' ')"
	[ ${#fails[@]} = 0 ] && printf ' none'
	for k in "${!fails[@]}"; do printf ' %s=%d' "$k" "${fails[$k]}"; done; echo
	unset fails
	rm -rf "$W/$s"
done
echo "$total runs, $bad with a failure; details in $W/log, every run in $W/runs"
