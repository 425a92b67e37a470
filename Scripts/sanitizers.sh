#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and ThreadSanitizer (docs/security.md).
#   Scripts/sanitizers.sh                 both
#   Scripts/sanitizers.sh address         or only one: address, thread
# Each has a build folder of its own (.build-asan, .build-tsan). The suites run one at a time:
# sanitized code is 2-10 times slower and the suites' time limits are set for a normal build.
# The real binary that the end-to-end tests start is sanitized too; its reports (and the test
# process's) go to files, printed at the end, and any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=interactive=no

kinds=("$@")
[ "${#kinds[@]}" -eq 0 ] && kinds=(address thread)
status=0
for kind in "${kinds[@]}"; do
    case "$kind" in
        address) scratch=.build-asan ;;
        thread) scratch=.build-tsan ;;
        *) echo "sanitizers: 'address' or 'thread', not '$kind'" >&2; exit 2 ;;
    esac
    reports=$(mktemp -d)
    echo "sanitizers: $kind: building in $scratch"
    swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" 2>&1 | grep -v "Cannot export local symbol" | tail -1
    echo "sanitizers: $kind: testing"
    # Leaks are not checked: the reports are all in the toolchain's libraries (XCTest, Foundation's
    # URLSession and libcurl) and in TOMLKit, which never frees the strings it copies out.
    if ! ASAN_OPTIONS="detect_leaks=0:log_path=$reports/report" TSAN_OPTIONS="log_path=$reports/report" \
        swift test --skip-build --no-parallel --sanitize="$kind" --scratch-path "$scratch" 2>&1 | tail -3; then
        status=1
    fi
    if compgen -G "$reports/report.*" >/dev/null; then
        echo "sanitizers: $kind reported:" >&2
        cat "$reports"/report.* >&2
        status=1
    else
        echo "sanitizers: $kind: no reports"
    fi
    rm -rf "$reports"
done
exit $status
