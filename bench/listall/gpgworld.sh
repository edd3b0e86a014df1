#!/bin/sh
# A world for run.sh whose records are OpenPGP-signed: TASKS tasks of one
# signed record each, written by this tree's build, in DIR/w/clone, with
# its HOME (DIR/home, run.sh's for that world) and a throwaway keyring
# (DIR/gnupg) holding the signer's key, whose agent is stopped at the end.
# What git judges of those signatures depends on the keyring: the caches
# of the read surfaces keep them under its digest (ops.Session.readDigest),
# so each command lists the keyring (one gpg --list-keys) and asks git
# nothing more while it holds.
# Usage: bench/listall/gpgworld.sh DIR [TASKS]
#   then: GNUPGHOME=DIR/gnupg CMDS='status handover' bench/listall/run.sh DIR/w/clone BASE [RUNS]
# Needs gpg and gpgconf on PATH.
set -eu
cd "$(dirname "$0")/../.."
dir=$1 tasks=${2:-200}
. bench/listall/world.sh
world_start
gpg -q --batch --passphrase '' --quick-gen-key 'Ada Tester <ada@example.invalid>' ed25519 sign never
world_tasks
gpgconf --kill all
echo "$tasks OpenPGP-signed tasks in $dir/w/clone"
