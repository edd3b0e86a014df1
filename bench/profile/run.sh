#!/bin/sh
# Where the time of `git-reason assess` goes, kernel included: samples N
# assess processes of the git-reason binary BIN (each appending to one
# small repository's task of ten assessments) with `perf record -g`
# (cpu-clock, so it works on a virtual machine without hardware counters),
# then prints the share of all samples of each part: package
# initialisation (and each package's share of it), the command's run
# (and each of our functions' share, inclusive), the rest (exec,
# the runtime's start, page faults, exit), and what the file system's
# calls cost inside all that (files and directories created, and of
# that the inode allocator stepping over inodes deleted lately, which an
# ext4 without a journal does; fsync; renames; unlinks). The repository
# is made under TMPDIR. Needs perf.
# Usage: bench/profile/run.sh BIN [N]   (default N 150)
set -eu
BIN=$1; N=${2:-150}
command -v perf >/dev/null || { echo "bench/profile: needs perf" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
git init -q "$work/repo" && cd "$work/repo" && git commit -q --allow-empty -m init
for i in 1 2 3 4 5 6 7 8 9 10; do
  "$BIN" assess T-1 --subject "s$i" --question "q?" --materiality trivial --reversibility reversible >/dev/null
done
perf record -q -o "$work/perf.data" -e cpu-clock -F 25000 -g -- sh -c '
  for i in $(seq '"$N"'); do
    "$0" assess T-1 --subject "x$i" --question "q?" --materiality trivial --reversibility reversible >/dev/null
  done' "$BIN" 2>/dev/null
perf script -i "$work/perf.data" --comm "$(basename "$BIN" | cut -c1-15)" -F ip,sym 2>/dev/null | awk '
  # One sample is a block of frames, leaf first, ended by an empty line.
  BEGIN {
    fsname["ext4_create"] = "files created (ext4_create)"
    fsname["ext4_mkdir"] = "directories created (ext4_mkdir: the objects fan-out)"
    fsname["recently_deleted"] = "of files and directories created, stepping over inodes deleted lately (recently_deleted; an ext4 without a journal only)"
    fsname["ext4_sync_file"] = "fsync (ext4_sync_file)"
    fsname["ext4_rename"] = "renames (ext4_rename)"
    fsname["ext4_unlink"] = "unlinks (ext4_unlink)"
  }
  NF == 0 { if (started) sample(); next }
  { started = 1; frames[++depth] = $2 }
  function sample(   i, s, part, initPkg, seen) {
    n++; part = "other (exec, runtime start, page faults, exit)"
    for (i = 1; i <= depth; i++) {
      s = frames[i]
      if (s == "runtime.doInit1") { part = "package initialisation"; if (i > 1) initPkg = frames[i-1] }
      if (s ~ /RunContext/) part = "the command (urfave/cli RunContext and below)"
      if (s ~ /^git-reason\// && !(s in seen)) { seen[s] = 1; if (part != "package initialisation") ours[s]++ }
      if (s in fsname && !((fsname[s]) in seen)) { seen[fsname[s]] = 1; fs[fsname[s]]++ }
    }
    parts[part]++
    if (initPkg != "") { sub(/\.init(\.[0-9]+)?$/, "", initPkg); inits[initPkg]++ }
    depth = 0; started = 0; delete frames
  }
  END {
    if (started) sample()
    printf "%d samples of %s\n", n, "assess"
    for (p in parts) printf "%6.1f%%  %s\n", 100 * parts[p] / n, p | "sort -rn"
    close("sort -rn")
    print "\npackage initialisation, by package (top 12):"
    for (p in inits) printf "%6.1f%%  %s\n", 100 * inits[p] / n, p | "sort -rn | head -12"
    close("sort -rn | head -12")
    print "\nour functions, inclusive, outside initialisation (top 25):"
    for (f in ours) printf "%6.1f%%  %s\n", 100 * ours[f] / n, f | "sort -rn | head -25"
    close("sort -rn | head -25")
    print "\nthe file system, inclusive (kernel frames; 0 when perf cannot see them):"
    for (f in fsname) printf "%6.1f%%  %s\n", 100 * fs[fsname[f]] / n, fsname[f] | "sort -rn"
    close("sort -rn")
  }'
