#!/usr/bin/env bash
# Money moves once when the wire lies (docs/roundups.md, "After a lost answer"): LyingWireTests'
# fault schedules past the 50 a source that swift test tries, from seed 51 on.
#   Fuzz/wire.sh [SCHEDULES]   default: 500 a source (about 2 minutes a hundred on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
schedules=${1:-500}
swift build --build-tests
QT_WIRE_SCHEDULES=$schedules QT_WIRE_SEED=51 swift test --skip-build --filter 'LyingWireTests/everySchedule'
