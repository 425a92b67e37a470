#!/usr/bin/env bash
# Issue 49's table in one run: bytes per j (text, and pictures in each protocol) in one pty,
# cold start, every tab's frame at 1k/100k/1M, and resident memory per activity at 1M for each
# id shape, each shape in a process of its own (a process that held one million rows reads
# the next measurement low). Needs a release build:
#   swift build -c release --product qapital-bench && swift build -c release --product qapital-tui
set -euo pipefail
cd "$(dirname "$0")/.."
bench=.build/release/qapital-bench
"$bench" bytes pictures start frames tabs
for shape in synthetic uuid monzo; do "$bench" "ids-$shape" | grep -E "^\| .*(activity|ids)" || true; done
