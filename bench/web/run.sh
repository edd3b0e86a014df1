#!/bin/sh
# Times the Reasoning page from a warm cache: the task list at 20,000
# tasks and the page of a task of 1,000 records (target 300 ms each).
# Run from anywhere in the module; arguments go to the program
# (-tasks N, -records N, -runs N, -keep DIR, -target D).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/web "$@"
