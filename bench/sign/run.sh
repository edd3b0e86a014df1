#!/bin/sh
# Costs of signing (issue 25), measured in one run:
#  - a signed write through the resident MCP server ('git reason mcp'),
#    the ssh key held by a throwaway ssh-agent (ssh-add), against the same
#    write through an unsigned server; median wall time per append;
#  - whole-process 'git reason verify' of -records signed records (spread
#    over -tasks tasks) against as many unsigned records, in the same
#    repository, alternating; medians of wall and CPU time and their ratio
#    (target: signed at most 2x unsigned), three ways: a first verify
#    (.git/reason/signatures and verified.journal removed before each run,
#    as in a fresh clone: no verdict kept; good ssh signatures of plain
#    allowed signers are judged in process), a re-verify (verdicts kept),
#    and one verify after 10 new records of each kind;
#  - the first verify again with every signature left to git
#    (-c gpg.ssh.program=ssh-keygen turns the in-process path off), and git
#    alone on the signed commits: git log %G? in one process, split between
#    two concurrent ones, and git log without %G? plus git cat-file (what
#    is left when the signatures are judged in process), -git-runs times.
# Usage: bench/sign/run.sh [-records N] [-tasks N] [-runs N] [-first-runs N] [-git-runs N] [-dir DIR]
# Needs git, ssh-keygen, ssh-agent and ssh-add on PATH.
set -eu
cd "$(dirname "$0")/../.."
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
go run ./bench/sign "$@"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
