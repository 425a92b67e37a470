#!/usr/bin/env bash
# The save protocol's model (docs/roundups.md, "The proof") at larger bounds than swift test's.
#   Fuzz/save-model.sh [MACHINES,DEPTH ...]   default: 2,6 3,5 3,6
set -euo pipefail
cd "$(dirname "$0")/.."
bounds=("$@")
[ "${#bounds[@]}" -eq 0 ] && bounds=(2,6 3,5 3,6)
swift build --build-tests
for bound in "${bounds[@]}"; do
    echo "save model: machines,depth = $bound"
    QT_SAVE_MODEL=$bound swift test --skip-build --filter 'SaveProtocolModelTests/everyInterleavingMovesEachPaymentOnce'
done
