#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each for a while: the shared ones in Fuzz/harnesses, and
# every bank's in Banks/NAME/Fuzz (found there: a new bank's harness needs no line here).
#   Fuzz/run.sh [SECONDS] [HARNESS...]  each harness (or the ones named) for SECONDS (default 60);
#                                 new inputs go to .build-fuzz/corpus (copy the few worth keeping
#                                 into Fuzz/corpus or Banks/NAME/Fuzz/corpus, the seeds in the repository)
#   Fuzz/run.sh --ci              a short fixed-seed pass (a set number of runs each), for CI
#   Fuzz/run.sh --properties [N]  the feed invariants (issue 36: every id once, every sum the
#                                 bank's, every goal the named one) over N generated feeds per
#                                 source (default 2000; `swift test` runs 20)
# After Fuzz/codecs.sh, the images harness links instrumented builds of libpng and libjpeg.
# A crash leaves its input in .build-fuzz/crashes/HARNESS/; make it a regression test (see docs/security.md).
set -euo pipefail
cd "$(dirname "$0")/.."

shared=(markup sanitizer payloads images replies)
# Each bank's harnesses: Banks/NAME/Fuzz/HARNESS.swift, linked with Banks/NAME/Client as NAMEClient
# (or the files Banks/NAME/Fuzz/client-files names).
declare -A bank_of=()
for file in Banks/*/Fuzz/*.swift; do
    [ -e "$file" ] || continue
    harness=$(basename "$file" .swift)
    bank_of[$harness]=$(basename "$(dirname "$(dirname "$file")")")
done
mapfile -t bank_harnesses < <(printf '%s\n' "${!bank_of[@]}" | sort)
all=("${shared[@]}" "${bank_harnesses[@]}")
mode=time
seconds=60
case "${1:-}" in
    --properties)
        QT_PROPERTY_CASES=${2:-2000} exec swift test --filter FeedInvariantTests ;;
    --ci) mode=ci; shift ;;
    "") ;;
    *[!0-9]*) ;;
    *) seconds=$1; shift ;;
esac
harnesses=("$@")
[ "${#harnesses[@]}" -eq 0 ] && harnesses=("${all[@]}")
for harness in "${harnesses[@]}"; do
    case " ${all[*]} " in
        *" $harness "*) ;;
        *) echo "fuzz: no harness '$harness' (there are: ${all[*]})" >&2; exit 2 ;;
    esac
done
wanted() { case " ${harnesses[*]} " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

# FeedModel's files, in its layer folders.
mapfile -t feedmodel < <(find Sources/FeedModel -name '*.swift' | sort)
out=.build-fuzz
mkdir -p "$out"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -suppress-warnings)
# ld.gold says "Cannot export local symbol '__asan_…'" a hundred times for every ASan build: a
# known, harmless note that buried CI's log. Dropped; everything else swiftc says is kept.
swiftc() {
    local status=0
    command swiftc "$@" 2> >(grep -v "Cannot export local symbol '__asan" >&2) || status=$?
    return "$status"
}

# A module as a static library the harness links (FeedModel; HTTPTransport and a bank's client on it).
library() {
    local name=$1; shift
    swiftc "${flags[@]}" -emit-library -static -emit-module -module-name "$name" -I "$out" -L "$out" \
        -emit-module-path "$out/$name.swiftmodule" -o "$out/lib$name.a" "$@"
}

echo "fuzz: building ${harnesses[*]}"
# Harnesses inside FeedModel's own module see its internals too.
for harness in markup sanitizer payloads; do
    wanted "$harness" || continue
    swiftc "${flags[@]}" -module-name FeedModel -o "$out/$harness" "${feedmodel[@]}" "Fuzz/harnesses/$harness.swift"
done
# The bank harnesses: FeedModel and HTTPTransport once, then each bank's client once, then each harness on it.
built_shared=no
declare -A built_bank=()
for harness in "${bank_harnesses[@]}"; do
    wanted "$harness" || continue
    bank=${bank_of[$harness]}
    if [ "$built_shared" = no ]; then
        library FeedModel "${feedmodel[@]}"
        library HTTPTransport -lFeedModel -I Sources/CCurl Sources/HTTPTransport/*.swift
        built_shared=yes
    fi
    if [ -z "${built_bank[$bank]:-}" ]; then
        # A client that needs a package this build does not make (RSA from swift-crypto, say)
        # names the files its harness needs in Banks/NAME/Fuzz/client-files, one a line.
        client=(Banks/"$bank"/Client/*.swift)
        if [ -f "Banks/$bank/Fuzz/client-files" ]; then
            mapfile -t client < <(grep -v '^[[:space:]]*\(#\|$\)' "Banks/$bank/Fuzz/client-files" | sed "s|^|Banks/$bank/Client/|")
        fi
        library "${bank}Client" -lFeedModel -lHTTPTransport -I Sources/CCurl "${client[@]}"
        built_bank[$bank]=yes
    fi
    swiftc "${flags[@]}" -module-name "${bank}Fuzz" -I "$out" -I Sources/CCurl -L "$out" -l"${bank}Client" -lHTTPTransport -lFeedModel \
        -lcurl -o "$out/$harness" "Banks/$bank/Fuzz/$harness.swift"
done
if wanted images; then
    # libpng and libjpeg through the C shims: instrumented builds from Fuzz/codecs.sh when they
    # are there (the fuzzer then steers by the decoders' own branches), Debian's otherwise.
    codecs=()
    if [ -f "$out/codecs/lib/libpng16.a" ] && [ -f "$out/codecs/lib/libjpeg.a" ]; then
        echo "fuzz: images against the instrumented libpng and libjpeg of Fuzz/codecs.sh"
        codecs=(-Xcc -I"$out/codecs/include" -L"$out/codecs/lib" -lz -lm)
    fi
    swiftc "${flags[@]}" -module-name TermImage -I Sources/CImageCodecs ${codecs[@]+"${codecs[@]}"} -lpng16 -ljpeg \
        -o "$out/images" Sources/TermImage/ImageDecoder.swift Sources/TermImage/RGBAImage.swift Fuzz/harnesses/images.swift
fi
if wanted replies; then
    # The terminal's answers and the keys: the scanner, the probe's parser and the key stream,
    # inside TermUI's own module (so the harness sees their internals), with ncurses for the key codes.
    swiftc "${flags[@]}" -module-name TermUI -I Sources/CNcurses -lncursesw -o "$out/replies" \
        Sources/TermUI/{Key,KeyDecoder,KeyStream,EscapeSequenceScanner,MouseReports,TerminalReplies,TerminalReplyParser}.swift \
        Fuzz/harnesses/replies.swift
fi

status=0
for harness in "${harnesses[@]}"; do
    corpus=Fuzz/corpus/$harness
    [ -n "${bank_of[$harness]:-}" ] && corpus=Banks/${bank_of[$harness]}/Fuzz/corpus/$harness
    mkdir -p "$corpus" "$out/crashes/$harness"
    work=$(mktemp -d)
    if [ "$mode" = ci ]; then
        limits=(-runs=20000 -seed=1)
    else
        limits=(-max_total_time="$seconds")
    fi
    echo "fuzz: $harness ${limits[*]}"
    # New inputs go to a scratch directory in CI, to .build-fuzz/corpus otherwise (the seeds stay as they are).
    target=$out/corpus/$harness
    mkdir -p "$target"
    [ "$mode" = ci ] && target=$work
    # Terminal replies are short: 4 KB reaches well past the scanner's limits (64 and 1024 bytes).
    max_len=65536
    [ "$harness" = replies ] && max_len=4096
    if ! "$out/$harness" "${limits[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/crashes/$harness/" "$target" "$corpus" 2>"$work/log"; then
        echo "fuzz: $harness FAILED; the end of its log:" >&2
        tail -30 "$work/log" >&2
        status=1
    fi
    grep -E "^#[0-9]+ *DONE|Done [0-9]+ runs" "$work/log" | tail -1 || true
    rm -rf "$work"
done
exit $status
