#!/bin/sh
# Wall time of `git reason status TASK` to the tenth of a millisecond
# (hyperfine, no shell), in the world bench/status/run.sh kept in DIR:
# warm (the head shown before), then after one new assessment each run
# (written by hyperfine's --prepare, untimed). bench/status/run.sh's wall
# times come in 10 ms steps, with perf's own start in them.
# Usage: bench/status/wall.sh DIR [RUNS]
#   DIR: the DIR of an earlier `bench/status/run.sh 1000 RUNS DIR`; RUNS: 31.
# Needs hyperfine.
set -eu
dir=$1 runs=${2:-31}
PATH="$dir/bin:$dir/advisor:$PATH" HOME="$dir/home"
export PATH HOME
cd "$dir/work-new"
task=T-00000
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg); $(git reason status "$task" | head -1)"
hyperfine -N -w 3 -r "$runs" -n warm "git reason status $task"
hyperfine -N -w 1 -r "$runs" -n "after one assessment" \
  --prepare "git reason assess $task --subject wall --question q? --materiality material --reversibility costly --evidence note::bench" \
  "git reason status $task"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
