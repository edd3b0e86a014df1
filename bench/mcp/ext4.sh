#!/bin/sh
# compare.sh on a fresh ext4 with a journal, as mkfs.ext4 makes it by
# default (the file system most Linux disks carry), made in a file and
# mounted through a loop device for the run, then removed. This machine's
# own disk is an ext4 without a journal: there, making a file searches
# the inodes deleted recently (ext4's recently_deleted, a third of the
# server's CPU time in a profile of its appends), so what an append costs
# follows how many files the machine deleted lately, not the server.
# Needs root (mount) and a loop device.
# Usage: bench/mcp/ext4.sh BASE [ROUNDS] [CYCLES] [PATTERN] (compare.sh's)
set -eu
cd "$(dirname "$0")"
img=$(mktemp "${IMGDIR:-/var/tmp}/ext4.XXXXXX")
mnt=$(mktemp -d)
trap 'umount "$mnt" 2>/dev/null || true; rmdir "$mnt"; rm -f "$img"' EXIT
truncate -s 2G "$img"
mkfs.ext4 -q -F "$img"
mount -o loop "$img" "$mnt"
echo "ext4 with a journal on a loop device: $(findmnt -n -o OPTIONS "$mnt")"
TMPDIR=$mnt sh ./compare.sh "$@"
