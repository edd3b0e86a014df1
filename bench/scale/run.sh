#!/bin/sh
# Measures git reason at 5,000 and 20,000 tasks (two records each) against
# plain git on the same refs: no-op sync, pull of one moved task, assess
# against 50 tasks, log -n 5, status, handover, verify, doctor and completion, and
# status after a plain git fetch moved 1, 10 and 100 tasks (the catch-up).
# Run from anywhere in the module; arguments go to the program
# (-runs N, -tasks 5000,20000, -small 50, -keep DIR: worlds kept, and used
# again by the next run under the same DIR; -write: assess and log -n 5
# alone; -catchup: the catch-up alone; -verify: verify of every task
# alone; -status: status of every task (the table), nothing moved, alone;
# -doctor: doctor alone; -log: log -n 5 and git-reason version
# alone; -first: the first status of a clone with no caches yet, alone;
# -firstassess: its first assess (the subject index built), alone;
# -firsttask: its first status of one task (T-000007), alone;
# -show: the first show of a record id, its index removed each run, alone;
# -search: a search whose index is made again (removed each run), alone;
# -audit: every read and write command first in a clone without caches,
# again, and after one task moved, with the files it wrote and the git
# processes it started; -pulled: each read command first after a clone,
# and first after a pull that moved 1 and 100 tasks, with the files it
# wrote and the git processes it started;
# with -verify, -status, -doctor, -log, -first, -firstassess, -firsttask, -search and -pulled, -baseline BINARY:
# another build's in the same rounds, and with all but -search, -loose:
# every task and tracking ref of each build's copy a loose file, as git
# fetch and git reason's appends leave them until git packs refs).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/scale "$@"
