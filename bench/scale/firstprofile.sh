#!/bin/sh
# Where the first git reason status of a clone whose git fetch brought
# every task spends its CPU (as bench/scale/firststatus.sh runs it: a copy
# of CLONE without .git/reason/), as built from REV and from the work
# tree: perf record -g of the process and the git processes it starts,
# then each part's share of every sample, its callees included: the read
# of the tasks (loadTask: the cache file or git), the task caches' writes
# (writeTaskCache, then the pack's save), the file creations among them
# (ext4_create), the replays (verdict), the records' checks (ReadStored),
# the garbage collector and the git processes.
# Usage: bench/scale/firstprofile.sh CLONE [REV]   (REV: da7a2f1, before
# a read of many tasks put their caches into tasks.pack)
set -eu
cd "$(dirname "$0")/../.."
. bench/twobuilds.sh
clone=$(cd "$1" && pwd) rev=${2:-da7a2f1}
scratch
twobuilds "$rev" ./cmd/git-reason
echo "tasks: $(git -C "$clone" for-each-ref refs/reasoning/tasks | wc -l); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for v in before after; do
  copy="$tmp/$v-copy"
  mkdir "$copy"
  (cd "$clone" && tar --exclude=./.git/reason -cf - .) | (cd "$copy" && tar -xf -)
  (cd "$copy" && PATH="$tmp/$v:$PATH" perf record -q -F 2000 -g -o "$tmp/$v.data" -- git reason status >/dev/null 2>&1) || true
  perf report -i "$tmp/$v.data" --children --sort sym --stdio -g none 2>/dev/null >"$tmp/$v.txt"
  total=$(perf report -i "$tmp/$v.data" --sort comm --stdio -g none 2>/dev/null | awk '/^# Samples/ { print $3 }')
  git=$(perf report -i "$tmp/$v.data" --sort comm --stdio -g none 2>/dev/null | awk '$NF == "git" { print $1 }')
  echo "$v: $total samples; git processes $git"
  for f in 'gitstore.(*Store).loadTask' 'gitstore.(*Store).readTask' 'gitstore.(*Store).writeTaskCache' \
    'gitstore.(*Store).writeCaches' ext4_create 'gitstore.(*Store).verdict' record.ReadStored \
    'gitstore.(*Store).goGitObject' runtime.gcBgMarkWorker; do
    awk -v f="$f" 'index($0, "%") && ($NF == f || $NF == "git-reason/" f) { printf "  %-8s %s\n", $1, $NF; n++ }
      END { if (!n) printf "  %-8s %s\n", "-", f }' "$tmp/$v.txt"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
