#!/bin/sh
# A world for run.sh whose records are X.509-signed: TASKS tasks of one
# signed record each, written by this tree's build, in DIR/w/clone, with
# its HOME (DIR/home, run.sh's for that world) and a throwaway gpgsm
# keyring (DIR/gnupg) holding a self-signed certificate on its trust
# list, CRL checks off, whose agent is stopped at the end. What git
# judges of those signatures depends on the keyring and the day: the
# caches of the read surfaces keep them under its digest
# (ops.Session.readDigest), so each command lists the keyring (one
# gpgsm --list-keys) and asks git nothing more while it holds.
# Usage: bench/listall/x509world.sh DIR [TASKS]
#   then: GNUPGHOME=DIR/gnupg CMDS='status handover' bench/listall/run.sh DIR/w/clone BASE [RUNS]
#   and: GNUPGHOME=DIR/gnupg gpgconf --kill all
# DIR short: gpg-agent's socket path must fit. Needs gpgsm and gpgconf on PATH.
set -eu
cd "$(dirname "$0")/../.."
dir=$1 tasks=${2:-200}
. bench/listall/world.sh
world_start
echo disable-crl-checks >"$GNUPGHOME/gpgsm.conf"
echo allow-loopback-pinentry >"$GNUPGHOME/gpg-agent.conf"
printf '%s\n' 'Key-Type: RSA' 'Key-Length: 2048' 'Key-Usage: sign' 'Serial: random' \
  'Name-DN: CN=Ada Tester,O=Example,EMail=ada@example.invalid' 'Name-Email: ada@example.invalid' >"$dir/cert.params"
gpgsm --batch --pinentry-mode loopback --passphrase '' --gen-key "$dir/cert.params" >"$dir/cert.der" 2>/dev/null
gpgsm --batch --import "$dir/cert.der" 2>/dev/null
fpr=$(gpgsm --with-colons --list-keys | awk -F: '/^fpr/ { print $10; exit }')
echo "$fpr S relax" >"$GNUPGHOME/trustlist.txt"
world_tasks gpg.format=x509 "user.signingKey=$fpr"
git verify-commit "refs/reasoning/tasks/T$tasks" 2>/dev/null || { echo "T$tasks: git does not verify its signature" >&2; exit 1; }
gpgconf --kill all
echo "$tasks X.509-signed tasks in $dir/w/clone"
