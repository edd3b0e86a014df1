#!/bin/sh
# Times `git reason handover` (markdown and --json), warm, over a generated
# repository of 1,000 tasks and 50,000 records; target 1 s. Run from
# anywhere in the module; arguments go to the program (-tasks N,
# -records N, -runs N, -dir DIR to keep and reuse the repository).
set -eu
cd "$(dirname "$0")/../.."
exec go run ./bench/handover "$@"
