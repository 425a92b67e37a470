#!/usr/bin/env bash
# kill -9 at random points of `roundups --save` against `serve` and the bank look-alikes that
# can move money (starling, monzo; up cannot), from two "machines" (two cache folders) in turn;
# then one clean run each. Checks the week's round-ups moved exactly once and every file the
# app wrote is still valid JSON.
#   Fuzz/kill-save.sh [RUNS]   RUNS kills per API (default 25)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-25}
bin="$(swift build --show-bin-path)/qapital-tui"
work=$(mktemp -d)
serve_pid=
cleanup() { [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failed=0
for api in qapital starling monzo; do
    "$bin" serve --api "$api" --port 0 2>"$work/serve-$api.err" >/dev/null &
    serve_pid=$!
    url=
    for _ in $(seq 100); do
        url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve-$api.err" | head -1 || true)
        [ -n "$url" ] && break
        sleep 0.05
    done
    case $api in
        qapital) source=(--api-url "$url") ;;
        starling) source=(--source starling --api-url "$url" --token starling-demo-token-7Qx2) ;;
        monzo) source=(--source monzo --api-url "$url" --token monzo-demo-token-3Kp9) ;;
    esac
    machine() { echo "$work/$api-machine-$1"; }
    run() {  # run MACHINE ARGS...
        local home; home=$(machine "$1"); shift
        HOME="$home" XDG_CACHE_HOME="$home/cache" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" TZ=Europe/London \
            "$bin" "$@" "${source[@]}"
    }
    balance() { run "$1" goals --output json --no-cache | jq '[.goals[] | select(.name == "Balloons") | .saved.minorUnits][0]'; }
    before=$(balance a)
    total=$(run a roundups --week last --output json --no-cache | jq '.total.minorUnits')
    kills=0
    for i in $(seq "$runs"); do
        m=$([ $((i % 2)) -eq 0 ] && echo a || echo b)
        run "$m" roundups --save --goal Balloons --week last --yes >/dev/null 2>&1 &
        pid=$!
        sleep "0.$(printf '%03d' $((RANDOM % 400)))"
        if kill -9 "$pid" 2>/dev/null; then kills=$((kills + 1)); fi
        wait "$pid" 2>/dev/null || true
    done
    for m in a b; do run "$m" roundups --save --goal Balloons --week last --yes >/dev/null 2>&1 || true; done
    after=$(balance a)
    moved=$((after - before))
    bad=0
    while IFS= read -r -d '' file; do
        jq empty "$file" 2>/dev/null || { echo "kill-save: $api: $file is not valid JSON" >&2; bad=1; }
    done < <(find "$work" -path "*$api-machine-*" -name '*.json' -print0)
    if [ "$moved" -eq "$total" ] && [ "$bad" -eq 0 ]; then
        echo "kill-save: $api: $kills of $runs runs killed; moved $moved of $total once; every file valid"
    else
        echo "kill-save: $api: FAILED: moved $moved, the week's round-ups are $total (kills $kills)" >&2
        failed=1
    fi
    kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true; serve_pid=
done
exit $failed
