#!/bin/sh
# What `git reason status TASK` costs on a task of many records, next to
# what git itself costs in the same run: the first status after the
# caches under .git/reason/ are removed (the whole history replayed),
# warm runs (the head shown before: its memo, no record read), and in
# each of RUNS rounds the status after one new record of each kind a
# task's loop writes (an assessment, its plan, the consultation of the
# one advisor the plan selects, the conclusion weighing it, an attempt),
# each going on from the head shown just before it; `git log -1` and
# `git cat-file -p` of the task's head are the floor of a process that
# reads the repository, and `git reason version` that of the program's
# start. Target: warm <= 50 ms for 1,000 records, and after one new
# record of any kind as close as it gets. CPU (of git reason and the git
# processes it waits for: perf stat's task-clock when perf is installed,
# else user+sys from time, in 10 ms steps) is reported next to wall time: on
# a shared machine the wall time says more about the load than the
# program. So are the page faults of each case (minor, of git reason
# and its git processes), which the load does not change.
# Usage: bench/status/run.sh [RECORDS] [RUNS] [DIR] [BASE] [instructions]
#   RECORDS: 1000; RUNS: 11; DIR: where the repository is generated
#   (kept and reused across runs; default a temporary directory, removed);
#   BASE: a revision to build and time in the same rounds, on its own
#   copy of the repository (before and after from one run);
#   instructions: after the timed rounds, the user-space instructions
#   of git-reason itself (valgrind's cachegrind, which the machine's load
#   does not change) for a warm status and a status after one record of
#   each kind, each build going on from its own copy.
# git-reason (and git-reason--net, which consult runs) is built as README
# installs it (-tags urfave_cli_no_docs,netgo). The repository is
# bench/handover's: one task, every record admitted by the real writer,
# packed by git gc. Counts that do not depend on timing are
# reliability.TestStatusCounts's and TestStatusAndLogGitProcesses's.
set -eu
cd "$(dirname "$0")/../.."
records=${1:-1000} runs=${2:-11} dir=${3:-} base=${4:-} instr=${5:-}
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
repo="$dir/repo-1-$records"
if [ ! -d "$repo" ]; then
  go run ./bench/handover -tasks 1 -records "$records" -runs 1 -dir "$dir" >/dev/null
fi
tags=urfave_cli_no_docs,netgo
mkdir -p "$dir/bin"
go build -tags "$tags" -o "$dir/bin/" ./cmd/...
builds="new"
if [ -n "$base" ]; then
  rm -rf "$dir/base-src" "$dir/base"
  mkdir -p "$dir/base"
  git worktree add --detach "$dir/base-src" "$base" >/dev/null 2>&1
  (cd "$dir/base-src" && go build -tags "$tags" -o "$dir/base/" ./cmd/...)
  git worktree remove --force "$dir/base-src"
  builds="base new"
fi
export HOME="$dir/home" GIT_CONFIG_NOSYSTEM=1 CI=
# One advisor, declared in the user's overlay (trusted), answering at
# once: each plan selects it and consult records its answer.
mkdir -p "$HOME/.config/git-reason" "$dir/advisor"
git config --global user.name >/dev/null || git config --global user.name Bench
git config --global user.email >/dev/null || git config --global user.email bench@example.com
cat >"$HOME/.config/git-reason/advisors.yaml" <<'EOF'
providers:
  - id: bench_tool
    name: Bench Tool
vendors:
  - id: benchvendor
    name: Bench Vendor
    models:
      - id: bench-model
advisors:
  - id: bench-advisor
    transport: cli
    adapter: exec
    executable: bench-advisor
    command: [bench-advisor]
    provider: bench_tool
    vendor: benchvendor
    model: bench-model
    capabilities: [reasoning]
EOF
cat >"$dir/advisor/bench-advisor" <<'EOF'
#!/bin/sh
cat >/dev/null
echo '{"stance":"endorse","summary":"a view","confidence":0.6}'
EOF
chmod 755 "$dir/advisor/bench-advisor"
task=T-00000
kinds="assessment plan consultation conclusion attempt"
path0=$PATH
use() { # build: its binaries first on PATH, its own copy of the repository
  case $1 in
  new) PATH="$dir/bin:$dir/advisor:$path0" ;;
  base) PATH="$dir/base:$dir/advisor:$path0" ;;
  esac
  export PATH
  cd "$dir/work-$1"
}
write() { # kind: one record of kind on the task, as a user writes it
  case $1 in
  assessment) git reason assess "$task" --subject "bench $i" --question "q?" \
    --materiality material --reversibility costly --evidence 'note::bench' ;;
  plan) git reason plan "$task" ;;
  consultation) git reason consult "$task" ;;
  conclusion)
    c=$(git reason log "$task" -n 1 --json | sed -n 's/^ *"id": "\([0-9A-Z]*\)",$/\1/p' | head -1)
    git reason conclude "$task" --decision "go ahead" --weigh "$c=adopted:bench" ;;
  attempt) git reason attempt "$task" --commit "$(git rev-parse HEAD)" --outcome succeeded ;;
  esac >/dev/null
}
one() { # label command...
  l=$1; shift
  if [ -n "$perf" ]; then
    # CPU and page faults counted by perf (the command and the git
    # processes it waits for), to the microsecond: time's CPU comes in
    # 10 ms steps, a third of what a status costs. Wall time is time's,
    # perf's own start in it.
    /usr/bin/time -f "%e" -o "$dir/t" perf stat -x, -o "$dir/ps" -e task-clock,minor-faults -- "$@" >"$dir/out"
    awk -F, -v l="$l" -v w="$(cat "$dir/t")" '$3 == "task-clock" { c = $1 } $3 ~ /^minor-faults/ { f = $1 }
      END { printf "wall %5.0f ms cpu %6.1f ms faults %5d %s\n", w * 1000, c, f, l }' "$dir/ps"
    return
  fi
  /usr/bin/time -f "%e %U %S %R" -o "$dir/t" "$@" >"$dir/out"
  awk -v l="$l" '{ printf "wall %5.0f ms cpu %6.1f ms faults %5d %s\n", $1 * 1000, ($2 + $3) * 1000, $4, l }' "$dir/t"
}
perf=
if command -v perf >/dev/null && perf stat -x, -o /dev/null -e task-clock,minor-faults true 2>/dev/null; then
  perf=perf
fi
cpu() { # file: the median cpu (ms) of file's lines
  sort -k5 -n "$1" | awk -v n="$runs" '{ a[NR] = $5 } END { print a[int((n + 1) / 2)] }'
}
faults() { # file: the median of file's page faults (minor, with the git processes waited for)
  sort -k8 -n "$1" | awk -v n="$runs" '{ a[NR] = $8 } END { print a[int((n + 1) / 2)] }'
}
median() { # label file: the median line of file by cpu
  sort -k5 -n "$2" | awk -v n="$runs" -v l="$1" '{ a[NR] = $0 } END { split(a[int((n + 1) / 2)], f, " "); printf "median by cpu: wall %5s ms cpu %4s ms %s\n", f[2], f[5], l }'
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); records: $(git -C "$repo" ls-tree refs/reasoning/tasks/$task:records | wc -l)"
for b in $builds; do
  rm -rf "$dir/work-$b"
  cp -a "$repo" "$dir/work-$b"
  use "$b"
  rm -rf .git/reason
  one "cold ($b)" git reason status "$task"
  grep -c 'does not verify' "$dir/out" >/dev/null && { echo "the generated task does not verify"; exit 1; }
  : >"$dir/warm-$b"; : >"$dir/version-$b"
  for k in $kinds; do : >"$dir/after-$k-$b"; done
done
: >"$dir/log"; : >"$dir/catfile"; : >"$dir/loads"
i=0
while [ "$i" -lt "$runs" ]; do
  for b in $builds; do
    use "$b"
    one "warm ($b)" git reason status "$task" >>"$dir/warm-$b"
    one "git reason version ($b)" git reason version >>"$dir/version-$b"
    for k in $kinds; do
      write "$k"
      one "after one $k ($b)" git reason status "$task" >>"$dir/after-$k-$b"
      grep -q 'does not verify' "$dir/out" && { echo "the task does not verify after a $k ($b)"; exit 1; }
    done
  done
  one "git log -1" git log -1 "refs/reasoning/tasks/$task" >>"$dir/log"
  one "git cat-file -p" git cat-file -p "refs/reasoning/tasks/$task" >>"$dir/catfile"
  cut -d' ' -f1 /proc/loadavg >>"$dir/loads"
  i=$((i + 1))
done
for b in $builds; do
  median "status warm ($b)" "$dir/warm-$b"
  for k in $kinds; do median "status after one $k ($b)" "$dir/after-$k-$b"; done
  median "git reason version, its start ($b)" "$dir/version-$b"
done
median "git log -1" "$dir/log"
median "git cat-file -p" "$dir/catfile"
# What a person compares: per case the CPU medians of each build (ms),
# new over base, and new less the program's start (git reason version in
# the same rounds): what the status itself costs.
echo "CPU medians, ms, $runs rounds (1-minute load per round: $(sort -n "$dir/loads" | head -1) to $(sort -n "$dir/loads" | tail -1)):"
printf '%-28s' case; for b in $builds; do printf '%8s' "$b"; done
[ -n "$base" ] && printf '%10s' new/base
printf '%14s\n' "new-version"
vn=$(cpu "$dir/version-new")
for k in warm $kinds version; do
  case $k in warm | version) f=$k; l=$k ;; *) f=after-$k; l="after one $k" ;; esac
  printf '%-28s' "$l"; for b in $builds; do printf '%8s' "$(cpu "$dir/$f-$b")"; done
  [ -n "$base" ] && awk -v n="$(cpu "$dir/$f-new")" -v b="$(cpu "$dir/$f-base")" 'BEGIN { if (b > 0) printf "%9.2fx", n / b; else printf "%10s", "-" }'
  awk -v n="$(cpu "$dir/$f-new")" -v v="$vn" 'BEGIN { printf "%14.1f\n", n - v }'
done
# Page faults, which the load does not change: each page of memory a
# status touches first is one, and at 1,000 records they are a third of
# a status's samples after one new record (perf record).
echo "page faults, medians (git reason and the git processes it waits for):"
printf '%-28s' case; for b in $builds; do printf '%8s' "$b"; done
[ -n "$base" ] && printf '%10s' new/base
echo
for k in warm $kinds version; do
  case $k in warm | version) f=$k; l=$k ;; *) f=after-$k; l="after one $k" ;; esac
  printf '%-28s' "$l"; for b in $builds; do printf '%8s' "$(faults "$dir/$f-$b")"; done
  [ -n "$base" ] && awk -v n="$(faults "$dir/$f-new")" -v b="$(faults "$dir/$f-base")" 'BEGIN { if (b > 0) printf "%9.2fx", n / b; else printf "%10s", "-" }'
  echo
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$instr" = instructions ] || exit 0
# Instructions: one count per case and build (cachegrind's counts vary by
# well under 1% between runs of the same case).
counted() { # the "I refs" of one git-reason status under cachegrind
  GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
    --cachegrind-out-file=/dev/null "$(command -v git-reason)" status "$task" 2>&1 >/dev/null |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
echo "user-space instructions of git-reason (cachegrind, millions):"
printf '%-28s' case; for b in $builds; do printf '%10s' "$b"; done
[ -n "$base" ] && printf '%10s' new/base
echo
for k in warm $kinds; do
  printf '%-28s' "$(case $k in warm) echo warm ;; *) echo "after one $k" ;; esac)"
  for b in $builds; do
    use "$b"
    [ "$k" = warm ] || write "$k"
    n=$(counted); eval "n_$b=$n"
    awk -v n="$n" 'BEGIN { printf "%10.1f", n / 1e6 }'
  done
  [ -n "$base" ] && awk -v n="$n_new" -v b="$n_base" 'BEGIN { printf "%9.2fx", n / b }'
  echo
done
