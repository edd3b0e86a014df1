#!/bin/sh
# Times assembling an advisor's question in-process: 20 evidence files of
# 1 MB, redacted, numbered, framed and fitted (target: under 100 ms).
# Arguments go to the program (-items N, -size BYTES, -runs N).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/material "$@"
