#!/bin/sh
# Peak memory and time of `git reason pull` over a delta-packed hostile
# history (arguments go to the program: -blobs 300,1500,5000, -dir DIR).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/pullmem "$@"
