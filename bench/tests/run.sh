#!/bin/sh
# Wall and CPU time of the test suite: `go test -short ./...` (the quick
# run a developer makes) and `go test ./...` (what .ci/run runs), both with
# -count=1 so no cached result counts. The test binaries are built first,
# so the figures are test time, not compile time. Prints the load average
# next to each figure (this machine is shared: the CPU time, user + system
# of go test and every process under it, is the figure other users' load
# changes least), the time of each package and the slowest tests.
#
# The form "pkgs" runs each package's compiled test binary alone with
# -test.short, one after the other, and prints its wall and CPU time: the
# cost of each package, free of go test's own work and of the packages
# running beside it. RUN=REGEXP passes -test.run (the tests that match run
# together, as in the whole run: what they share is shared).
# The form "each" runs every top-level test of one package (PKG, default
# ./cmd/git-reason) alone with -test.short, and every testscript of its
# testdata/script alone, and prints each one's wall and CPU time, the most
# CPU first, after the fixed cost of starting the test binary (TestMain,
# no test): where the package's CPU goes, free of the tests beside it.
# RUN=REGEXP limits it to the tests and scripts whose names match.
# PROCS=1 runs each under strace (execve only, --seccomp-bpf) and adds the
# number of processes it started to its line; its CPU figure then counts
# strace's own work too: take CPU from a run without PROCS.
#
# The form "procs" runs one package's test binary (PKG, as above; RUN
# passed as -test.run) with -test.short under strace -f and prints how
# many processes of each kind it started, the most first (git and
# git-reason by subcommand): where process starts can be saved. It needs
# strace, and runs slower under it.
# The form "sitting" measures a base revision and this tree in one sitting:
# BASE=REV (default main) is checked out in a temporary worktree, both
# trees' test binaries and git-reason builds are made first (not timed),
# then for each of FORMS (default "short full") the base's go test ./...
# runs and then this tree's, one straight after the other, each with its
# wall and CPU time, the load before and after, and each package's time:
# the before and after of a change to the suite, on the same machine in
# the same hour. PKGS limits it to some packages (default ./...). The
# worktree is removed at the end.
# The form "pair" measures some tests of one package before and after a
# change: the test binaries of BASE=REV (default main, in a temporary
# worktree) and of this tree (PKG, default ./cmd/git-reason) run the tests
# RUN (a -test.run pattern, default .) with -test.short (SHORT=0: without),
# alternated ROUNDS times (default 3, base first in each round), each run
# alone; it prints each run's wall and CPU time and the load, then the
# median CPU of each and head / base.
# The form "percmd" splits what one command of a script costs: N (default
# 40) runs each of git reason status TASK through git's dispatch,
# git-reason status TASK, git-reason --version (the program's start), and
# the two git processes every command starts (discovery and git config
# --list), and the read verbs printing JSON, in a repository of one task,
# built as README installs it; the CPU time of one run of each, side by
# side in one sitting. BASE=REV builds that revision's git-reason too and
# runs each git-reason command with it just before this tree's.
# The form "parallel" runs one package's test binary (PKG, default
# ./cmd/git-reason) with -test.short whole, once for each -test.parallel
# value of PARS (default "2 4 2 4": alternated, in one sitting), and
# prints each run's wall and CPU time with the load before and after:
# whether more tests at once overlap their idle waits (a server's grace,
# a poll, a pseudo-terminal) with other tests' CPU work. The order is
# kept, so compare neighbours.
# The form "scripts" counts, without running anything, the commands each
# testscript of cmd/git-reason types: git reason through git's dispatch,
# git-reason run directly, other git commands (TOP=-1 lists them all).
# Usage: bench/tests/run.sh [short|full|both|pkgs|each|procs|sitting|pair|percmd|parallel|scripts]   (default both)
# Environment: P=N passes -p N to go test (one package at a time with P=1,
# which makes per-package figures comparable on a loaded machine);
# TPAR=N passes -parallel N (tests at once within a package; the default
# is one per processor, and cmd/git-reason's TestMain may choose its own);
# TOP=N lists the N slowest tests (default 15); OUT=DIR keeps the
# go test -json logs there; PKGS='./gitstore ./record' limits the pkgs form;
# SHORT=0 runs the pkgs and each forms without -test.short (the long forms
# that go test ./... runs).
set -eu
cd "$(dirname "$0")/../.."
forms=${1:-both}
case $forms in
short | full | pkgs | each | procs | sitting | pair | percmd | parallel | scripts) ;;
both) forms="short full" ;;
*) echo "usage: bench/tests/run.sh [short|full|both|pkgs|each|procs|sitting|pair|percmd|parallel|scripts]" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
par=""
[ -n "${P:-}" ] && par="-p $P"
tpar=""
[ -n "${TPAR:-}" ] && tpar="-test.parallel $TPAR" && par="$par -parallel $TPAR"
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime; }
short=-test.short
[ "${SHORT:-1}" = 0 ] && short=""

echo "cpus: $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?)  $(go version)  ${par:-default -p}"
# The summarizing tool is built outside the logs directory (a binary
# named summary among the logs read as one), and removed on exit.
tool=$(mktemp -d)
trap 'rm -rf "$tool"' EXIT
go build -o "$tool/summary" ./bench/tests
status=0

# timed DIR LABEL LOG RESULTS FAILED CMD...: runs CMD in DIR under the
# summary tool, its line of wall and CPU time appended to RESULTS and its
# output kept in LOG; a failed run says FAILED and sets status.
timed() {
  t_dir=$1 t_label=$2 t_log=$3 t_results=$4 t_failed=$5
  shift 5
  (cd "$t_dir" && "$tool/summary" -time -label "$t_label" -log "$t_log" "$@") 2>>"$t_results" ||
    { status=1; echo "$t_failed (log: $t_log)" >&2; }
}

if [ "$forms" = scripts ]; then
  "$tool/summary" -scripts cmd/git-reason/testdata/script -top "${TOP:-25}"
  exit 0
fi

if [ "$forms" = percmd ]; then
  n=${N:-40}
  go build -tags urfave_cli_no_docs,netgo -o "$tool/" ./cmd/git-reason ./cmd/git-reason--net
  bases=""
  if [ -n "${BASE:-}" ]; then # the base's git-reason, run beside this tree's in each round
    base=$(git rev-parse --verify "$BASE^{commit}")
    git worktree add -q --detach "$out/base" "$base"
    top=$(pwd) # the trap runs after cd into the scratch repository
    trap 'git -C "$top" worktree remove --force "$out/base"; rm -rf "$tool"' EXIT
    mkdir -p "$tool/base"
    (cd "$out/base" && go build -tags urfave_cli_no_docs,netgo -o "$tool/base/" ./cmd/git-reason ./cmd/git-reason--net)
    bases="base"
  fi
  repo="$out/percmd"
  export PATH="$tool:$PATH" HOME="$out/home" GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES="$out" LC_ALL=C
  mkdir -p "$HOME"
  git config --global user.name 'Ada Tester'
  git config --global user.email ada@example.invalid
  git init -q "$repo"
  cd "$repo"
  git commit -q --allow-empty -m base
  git reason assess T --subject s --question q --materiality trivial --reversibility reversible >/dev/null
  id=$(git-reason log T -n 1 --jq '.[].id')
  echo "== $n runs of each, one sitting (load before: $(load))${bases:+; base $(git -C "$out/base" rev-parse --short HEAD) then this tree, alternated}"
  for c in "git reason status T" "git-reason status T" "git-reason status T --json" "git-reason tasks --json" \
    "git-reason show $id --json" "git-reason --version" "git rev-parse --git-dir" \
    "git config --list -z --show-scope --includes"; do
    for tree in $bases head; do
      case $c in git\ rev-parse* | git\ config*) [ "$tree" = base ] && continue ;; esac
      p=$tool label="$c"
      [ "$tree" = base ] && p=$tool/base label="base $c"
      [ "$tree" = head ] && [ -n "$bases" ] && label="head $c"
      PATH="$p:$PATH" "$tool/summary" -time -label "$label" sh -c "i=0; while [ \$i -lt $n ]; do $c >/dev/null; i=\$((i+1)); done" 2>&1 |
        awk -v n="$n" -F'[:,]' '{ sub(/ s CPU.*/, "", $3); printf "  %-56s %6.1f ms CPU a run\n", $1, 1000 * $3 / n }'
    done
  done
  echo "== load after: $(load)"
  exit 0
fi

# base_worktree checks BASE (default main) out in $out/base, a worktree
# removed on exit, and sets base (its commit), wt (the worktree) and
# head (this tree's commit, marked +changes when tracked files changed):
# what the sitting and pair forms compare.
base_worktree() {
  base=$(git rev-parse --verify "${BASE:-main}^{commit}")
  head=$(git rev-parse --short HEAD)
  [ -z "$(git status --porcelain --untracked-files=no)" ] || head="$head+changes"
  wt="$out/base"
  git worktree add -q --detach "$wt" "$base"
  trap 'git worktree remove --force "$wt"; rm -rf "$tool"' EXIT
}

if [ "$forms" = sitting ]; then
  base_worktree
  echo "== base $(git rev-parse --short "$base") in $wt; this tree: $head"
  echo "== building both trees' test binaries and git-reason (not timed)"
  # shellcheck disable=SC2086 # PKGS is a list of patterns
  (cd "$wt" && go test -count=1 -run '^$' ${PKGS:-./...} >/dev/null)
  # shellcheck disable=SC2086
  go test -count=1 -run '^$' ${PKGS:-./...} >/dev/null
  for form in ${FORMS:-short full}; do
    flags="-timeout 30m"
    [ "$form" = short ] && flags="$flags -short"
    for tree in base head; do
      dir=.
      [ $tree = base ] && dir=$wt
      before=$(load)
      # shellcheck disable=SC2086 # flags and par are lists of words
      (cd "$dir" && "$tool/summary" -time -label "$tree: go test $par $flags ${PKGS:-./...}" \
        go test -count=1 $par $flags -json ${PKGS:-./...} >"$out/$form-$tree.json" 2>"$out/$form-$tree.time") || status=1
      echo "== $(tail -1 "$out/$form-$tree.time") (load before: $before; after: $(load))"
      "$tool/summary" -top "${TOP:-15}" <"$out/$form-$tree.json"
    done
  done
  echo "logs: $out"
  exit $status
fi

if [ "$forms" = pair ]; then
  pkg=${PKG:-./cmd/git-reason}
  base_worktree
  echo "== base $(git rev-parse --short "$base"), head $head: $pkg, ${short:-without -test.short}, -test.run '${RUN:-.}'"
  echo "== building both trees' test binaries and git-reason (not timed)"
  for tree in base head; do
    dir=.
    [ $tree = base ] && dir=$wt
    (cd "$dir" && go test -c -o "$out/$tree.test" "$pkg" && go test -count=1 -run '^$' ./cmd/git-reason >/dev/null)
  done
  pdir=$(go list -f '{{.Dir}}' "$pkg")
  rel=${pdir#"$(pwd)"}
  : >"$out/pair.txt"
  i=0
  while [ "$i" -lt "${ROUNDS:-3}" ]; do
    i=$((i + 1))
    for tree in base head; do
      dir=$pdir
      [ $tree = base ] && dir=$wt$rel
      before=$(load)
      timed "$dir" "$tree" "$out/$tree.$i.log" "$out/pair.txt" "FAIL $tree round $i" \
        "$out/$tree.test" $short -test.count=1 -test.timeout 30m -test.run "${RUN:-.}"
      echo "  round $i $(tail -1 "$out/pair.txt") (load before: $before; after: $(load))"
    done
  done
  # The CPU figure is the second comma-separated field: "head: W s wall, C s CPU (...)".
  awk -F'[:,]' '{ sub(/ s CPU.*/, "", $3); print $1, $3 }' "$out/pair.txt" | sort -k1,1 -k2n | awk '
    { v[$1, ++n[$1]] = $2 }
    END { for (t in n) { m[t] = (n[t] % 2) ? v[t, (n[t] + 1) / 2] : (v[t, n[t] / 2] + v[t, n[t] / 2 + 1]) / 2 }
      printf "== median CPU: base %.1f s, head %.1f s (%.2fx)\n", m["base"], m["head"], m["head"] / m["base"] }'
  echo "logs: $out"
  exit $status
fi

# test_binary builds the test binary of PKG (default ./cmd/git-reason)
# as $out/FORM.test, and the git-reason build its tests share, and sets
# pkg, dir (the package's folder) and bin: what the procs and each forms
# run.
test_binary() {
  pkg=${PKG:-./cmd/git-reason}
  dir=$(go list -f '{{.Dir}}' "$pkg")
  bin="$out/$1.test"
  echo "== building $pkg's test binary and the shared git-reason build (not timed)"
  go test -c -o "$bin" "$pkg"
  go test -count=1 -run '^$' ./cmd/git-reason >/dev/null
}

if [ "$forms" = procs ]; then
  command -v strace >/dev/null || { echo "bench/tests/run.sh procs: needs strace" >&2; exit 2; }
  test_binary procs
  echo "== $pkg's tests, -test.short${RUN:+ -test.run $RUN}, under strace (load before: $(load))"
  (cd "$dir" && strace -f -qq -z -s 256 -e trace=execve -e signal=none -o "$out/procs.trace" \
    "$bin" -test.short -test.count=1 -test.timeout 30m -test.run "${RUN:-.}" >"$out/procs.log" 2>&1) ||
    { status=1; echo "FAIL (log: $out/procs.log)" >&2; }
  "$tool/summary" -execs "$out/procs.trace" -top "${TOP:-40}"
  echo "logs: $out"
  exit $status
fi

if [ "$forms" = parallel ]; then
  test_binary parallel
  : >"$out/parallel.txt"
  i=0
  for n in ${PARS:-2 4 2 4}; do
    i=$((i + 1))
    before=$(load)
    timed "$dir" "run $i: -test.parallel $n" "$out/parallel.$i.log" "$out/parallel.txt" "FAIL run $i" \
      "$bin" $short -test.count=1 -test.timeout 30m -test.parallel "$n"
    echo "$(tail -1 "$out/parallel.txt") (load before: $before; after: $(load))"
  done
  echo "logs: $out"
  exit $status
fi

if [ "$forms" = each ]; then
  test_binary each
  echo "== each test of $pkg alone, ${short:-without -test.short} (load before: $(load))"
  : >"$out/each.txt"
  trace=""
  if [ "${PROCS:-0}" = 1 ]; then
    command -v strace >/dev/null || { echo "bench/tests/run.sh each: PROCS=1 needs strace" >&2; exit 2; }
    trace="strace -f -qq --seccomp-bpf -z -e trace=execve -e signal=none -o $out/each.trace"
  fi
  each() { # label, then the -test.run pattern
    [ "$1" = '(start only)' ] || echo "$1" | grep -Eq -- "${RUN:-.}" || return 0
    # shellcheck disable=SC2086 # trace is a list of words
    (cd "$dir" && "$tool/summary" -time -label "$1" -log "$out/each.log" \
      $trace "$bin" $short -test.count=1 -test.timeout 30m -test.run "$2") 2>>"$out/each.txt" ||
      { status=1; echo "FAIL $1 (log: $out/each.log)" >&2; cp "$out/each.log" "$out/$(echo "$1" | tr / _).fail.log"; }
    if [ -n "$trace" ]; then # the processes it started, the test binary itself not counted
      n=$("$tool/summary" -execs "$out/each.trace" -top 0 | awk 'NR == 1 { print $1 - 1 }')
      sed -i "\$s/\$/, $n processes/" "$out/each.txt"
    fi
  }
  each '(start only)' '^$'
  for t in $("$bin" -test.list '.*' | grep '^Test'); do
    if [ "$t" = TestScript ] && [ -d "$dir/testdata/script" ]; then
      for f in "$dir"/testdata/script/*.txtar; do
        s=$(basename "$f" .txtar)
        each "TestScript/$s" "^TestScript\$/^$s\$"
      done
    else
      each "$t" "^$t\$"
    fi
  done
  # The CPU figure is the second comma-separated field: "W s wall, C s CPU (...)".
  awk -F', ' '{ split($2, c, " "); print c[1] "\t" $0 }' "$out/each.txt" | sort -rn | cut -f2- | head -"${TOP:-40}"
  awk -F'[:,]' '{ sub(/ s wall/, "", $2); sub(/ s CPU.*/, "", $3); w += $2; c += $3; n++ }
    END { printf "== %d runs one after the other: %.1f s wall, %.1f s CPU (load after: %s)\n", n, w, c, "'"$(load)"'" }' "$out/each.txt"
  echo "logs: $out"
  exit $status
fi

if [ "$forms" = pkgs ]; then
  echo "== building the test binaries (not timed)"
  mkdir -p "$out/bin"
  # shellcheck disable=SC2086 # PKGS is a list of patterns
  go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}' ${PKGS:-./...} >"$out/pkgs"
  while read -r pkg dir; do
    go test -c -o "$out/bin/$(echo "$pkg" | tr / _).test" "$pkg"
  done <"$out/pkgs"
  # The end-to-end packages share one git-reason build (reliability/harness,
  # cached per source): make it now, so that no package's time holds it.
  go test -count=1 -run '^$' ./cmd/git-reason >/dev/null
  echo "== each package's tests alone, ${short:-without -test.short} (load before: $(load))"
  : >"$out/pkgs.txt"
  while read -r pkg dir; do
    bin="$out/bin/$(echo "$pkg" | tr / _).test"
    # shellcheck disable=SC2086 # tpar is a list of words
    (cd "$dir" && "$tool/summary" -time -label "${pkg#git-reason/}" -log "$bin.log" \
      "$bin" $short -test.count=1 -test.timeout 30m -test.run "${RUN:-.}" $tpar) 2>>"$out/pkgs.txt" || status=1
    tail -1 "$out/pkgs.txt"
  done <"$out/pkgs"
  awk -F'[:,]' '{ sub(/ s wall/, "", $2); sub(/ s CPU.*/, "", $3); w += $2; c += $3 }
    END { printf "== all packages one after the other: %.1f s wall, %.1f s CPU (load after: %s)\n", w, c, "'"$(load)"'" }' "$out/pkgs.txt"
  echo "logs: $out"
  exit $status
fi

echo "== building the test binaries (not timed)"
go test -count=1 -run '^$' ./... >/dev/null
for form in $forms; do
  flags="-timeout 30m"
  [ "$form" = short ] && flags="$flags -short"
  before=$(load)
  # shellcheck disable=SC2086 # flags and par are lists of words
  "$tool/summary" -time -label "go test $par $flags ./..." \
    go test -count=1 $par $flags -json ./... >"$out/$form.json" 2>"$out/$form.time" || status=1
  echo "== $(tail -1 "$out/$form.time") (load before: $before; after: $(load))"
  "$tool/summary" -top "${TOP:-15}" <"$out/$form.json"
done
echo "logs: $out"
exit $status
