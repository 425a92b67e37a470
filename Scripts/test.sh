#!/usr/bin/env bash
# The README's second command: installs what building and testing need (Scripts/bootstrap.sh),
# then runs the tests. Arguments go to `swift test` (`Scripts/test.sh --filter GoldenFrameTests`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/bootstrap.sh test
exec swift test "$@"
