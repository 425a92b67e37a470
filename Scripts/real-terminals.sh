#!/usr/bin/env bash
# The app in real terminal emulators under Xvfb, checked from screenshots: xterm with sixel
# (-ti vt340) and, where it is installed and starts, kitty (kitty graphics): Debian 12's, which
# places pictures, and Debian 13's (Scripts/kitty-trixie.sh), which draws Unicode placeholders.
#   Scripts/real-terminals.sh [BINARY] [OUTDIR]      (default: .build/debug/qapital-tui, .build/real-terminals)
# For each terminal: the Goals tab must show Balloons' photo as a picture (more colours in its
# thumbnail than half blocks have); its detail the large photo as a picture, and back on the
# list the screen must be pixel for pixel what a full repaint (Ctrl-L) draws; then Activity,
# scrolled 40 rows, the same: nothing left behind by pictures that went away.
# Needs Xvfb, xterm, xdotool, xwd (x11-apps) and python3; every wait has a deadline.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-.build/debug/qapital-tui}")"
out="${2:-.build/real-terminals}"
mkdir -p "$out"
for tool in Xvfb xterm xdotool xwd python3; do
    command -v "$tool" >/dev/null || { echo "real-terminals: needs $tool (apt-get install xvfb xterm xdotool x11-apps)" >&2; exit 2; }
done
check() { python3 Scripts/check_screenshot.py "$@"; }

# -displayfd: Xvfb picks a free display and writes its number once it accepts connections.
rm -f "$out/display"
Xvfb -displayfd 3 -screen 0 1400x900x24 -nolisten tcp 3>"$out/display" >"$out/xvfb.log" 2>&1 &
xvfb=$!
terminal=""
cleanup() {
    [ -n "$terminal" ] && kill "$terminal" 2>/dev/null || true
    kill "$xvfb" 2>/dev/null || true
}
trap cleanup EXIT

# Polls `command` every 0.2 s until it succeeds or `seconds` pass.
until_ok() {
    local seconds=$1; shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.2
    done
}
until_ok 10 grep -q '[0-9]' "$out/display" || { echo "real-terminals: Xvfb did not start" >&2; exit 1; }
export DISPLAY=":$(tr -dc '0-9' <"$out/display")"
until_ok 10 xdotool getdisplaygeometry || { echo "real-terminals: Xvfb did not answer" >&2; exit 1; }
# The terminals ask fontconfig for DejaVu Sans Mono: its cache is built here, once, not
# inside the first terminal's wait for a window.
command -v fc-match >/dev/null && fc-match 'DejaVu Sans Mono' >/dev/null 2>&1 || true

window=""
find_window() { window=$(xdotool search --onlyvisible --pid "$terminal" 2>/dev/null | head -n 1); [ -n "$window" ]; }
shot() { xwd -id "$window" -silent >"$out/$1.xwd"; }
# A screenshot taken twice in a row with the same pixels: the terminal has drawn everything.
settled() {
    shot "$1"
    local previous="$out/$1.previous.xwd"
    cp "$out/$1.xwd" "$previous"
    until_ok 5 sh -c "xwd -id $window -silent >'$out/$1.xwd' && python3 Scripts/check_screenshot.py same '$out/$1.xwd' '$previous' || { cp '$out/$1.xwd' '$previous'; false; }"
}
keys() { xdotool windowfocus --sync "$window" 2>/dev/null || true; xdotool type --delay 20 "$1"; }

# open_window NAME COMMAND…: starts the terminal, its output in NAME.log, and waits for its
# window. A second try when none comes: an X client can fail to connect, or spend its first
# seconds building the font cache, on a loaded machine. Says so and fails when neither try did.
open_window() {
    local name=$1; shift
    local attempt
    for attempt in 1 2; do
        "$@" >"$out/$name.log" 2>&1 &
        terminal=$!
        until_ok 30 find_window && return 0
        kill "$terminal" 2>/dev/null || true
        terminal=""
    done
    echo "real-terminals: $name did not open a window (its last words: $(tail -n 1 "$out/$name.log"))" >&2
    return 1
}

# run NAME COMMAND…: the app in a terminal of 100 × 30 cells with no border; the cell size is
# the window's size over that.
run() {
    local name=$1; shift
    open_window "$name" "$@" || return 3
    local size cw ch
    size=$(xdotool getwindowgeometry "$window" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
    cw=$(( ${size% *} / 100 )); ch=$(( ${size#* } / 30 ))
    echo "real-terminals: $name: window $size, cell $cw x $ch"
    # Balloons' thumbnail: cells 0–3 of the second line.
    local picture=(picture "$out/$name-goals.xwd" 0 "$ch" "$cw" "$ch" 4 1)
    if ! until_ok 20 sh -c "xwd -id $window -silent >'$out/$name-goals.xwd' && python3 Scripts/check_screenshot.py ${picture[*]}"; then
        check "${picture[@]}" || true
        echo "real-terminals: $name: Balloons' photo is not drawn as a picture (see $out/$name-goals.png)" >&2
        check png "$out/$name-goals.xwd" "$out/$name-goals.png"
        return 1
    fi
    settled "$name-goals"
    check png "$out/$name-goals.xwd" "$out/$name-goals.png"
    # Balloons' detail: at 100 × 30 its photo is large, 12 rows from the second line (20 columns
    # are inside it whatever the cell's shape). The demo's photo is 48 pixels, so most cells
    # are flat: one in ten varying inside a half is a picture (half blocks: none, a monogram's
    # two letters: 2 of 240). Back on the list (h) nothing of it may stay.
    xdotool windowfocus --sync "$window" 2>/dev/null || true
    xdotool key Return
    local large=(picture "$out/$name-detail.xwd" 0 "$ch" "$cw" "$ch" 20 12 10)
    if ! until_ok 20 sh -c "xwd -id $window -silent >'$out/$name-detail.xwd' && python3 Scripts/check_screenshot.py ${large[*]}"; then
        check "${large[@]}" || true
        check png "$out/$name-detail.xwd" "$out/$name-detail.png"
        echo "real-terminals: $name: the goal detail's large photo is not drawn as a picture (see $out/$name-detail.png)" >&2
        return 1
    fi
    settled "$name-detail"
    check png "$out/$name-detail.xwd" "$out/$name-detail.png"
    keys "h"
    until_ok 10 sh -c "xwd -id $window -silent >'$out/$name-back.xwd' && ! python3 Scripts/check_screenshot.py same '$out/$name-back.xwd' '$out/$name-detail.xwd'" || true
    settled "$name-back"
    xdotool key ctrl+l
    settled "$name-back-repainted"
    if ! check alike "$out/$name-back.xwd" "$out/$name-back-repainted.xwd" "$cw" "$ch"; then
        check png "$out/$name-back.xwd" "$out/$name-back.png"
        check png "$out/$name-back-repainted.xwd" "$out/$name-back-repainted.png"
        echo "real-terminals: $name: leaving the detail left something behind (compare $out/$name-back.png and -back-repainted.png)" >&2
        return 1
    fi
    keys "2"
    # One key at a time, each waited for (the screen changes with every one: the selection moves
    # or the view scrolls), so the screenshot is of all of them: forty j (the view scrolls up),
    # then thirty k (the selection climbs to the top, and the view scrolls back down).
    settled "$name-activity"
    local step key
    for step in $(seq 70); do
        key=j; [ "$step" -gt 40 ] && key=k
        keys "$key"
        # check_screenshot.py same: 0 alike, 1 different, anything else an error.
        until_ok 10 sh -c "xwd -id $window -silent >'$out/$name-step.xwd' && { python3 Scripts/check_screenshot.py same '$out/$name-step.xwd' '$out/$name-activity.xwd'; [ \$? -eq 1 ]; }" \
            || { echo "real-terminals: $name: $key number $step changed nothing on screen" >&2; return 1; }
        cp "$out/$name-step.xwd" "$out/$name-activity.xwd"
    done
    # Uncovered, the terminal draws the window again from what it keeps: a picture it keeps in
    # the wrong place shows now. Not xterm: it keeps only its newest 16 sixel pictures (seen
    # here: 23 drawn, 16 back after uncovering), so a screen of avatars loses some whatever
    # the app sends.
    case "$name" in
    kitty*) xdotool windowunmap --sync "$window" && xdotool windowmap --sync "$window" || true ;;
    esac
    settled "$name-scrolled"
    # The avatars (the first two columns of the list's rows) are pictures, not half blocks.
    if ! check picture "$out/$name-scrolled.xwd" 0 $((2 * ch)) "$cw" "$ch" 2 26 40; then
        check png "$out/$name-scrolled.xwd" "$out/$name-scrolled.png"
        echo "real-terminals: $name: after scrolling, the avatars are not drawn as pictures (see $out/$name-scrolled.png)" >&2
        return 1
    fi
    xdotool key ctrl+l
    settled "$name-repainted"
    check png "$out/$name-scrolled.xwd" "$out/$name-scrolled.png"
    # All but the scrollbar column and the last two lines (the "N of M" counter): the pager may
    # fetch older activity meanwhile.
    if ! check alike "$out/$name-scrolled.xwd" "$out/$name-repainted.xwd" "$cw" "$ch" $((2 * cw)) $((2 * ch)); then
        check png "$out/$name-repainted.xwd" "$out/$name-repainted.png"
        echo "real-terminals: $name: scrolling left something behind (compare $out/$name-scrolled.png and -repainted.png)" >&2
        return 1
    fi
    keys "q"
    until_ok 5 sh -c "! kill -0 $terminal" || kill "$terminal" 2>/dev/null || true
    terminal=""
    echo "real-terminals: $name: pictures drawn (the detail's large photo too), nothing left behind ($out/$name-goals.png, $name-detail.png)"
}

# The control: xterm without sixel (-ti vt220) gets half blocks, and the check says so.
half_blocks() {
    open_window xterm-plain "$@" || return 1
    local size cw ch
    size=$(xdotool getwindowgeometry "$window" | sed -n 's/.*Geometry: \([0-9]*\)x\([0-9]*\).*/\1 \2/p')
    cw=$(( ${size% *} / 100 )); ch=$(( ${size#* } / 30 ))
    # The half blocks are drawn once "Balloons" is (its picture comes with the goals).
    settled xterm-plain-goals
    settled xterm-plain-goals
    check png "$out/xterm-plain-goals.xwd" "$out/xterm-plain-goals.png"
    # The detail's large photo in half blocks, for the looser check below.
    xdotool windowfocus --sync "$window" 2>/dev/null || true
    xdotool key Return
    until_ok 10 sh -c "xwd -id $window -silent >'$out/xterm-plain-detail.xwd' && ! python3 Scripts/check_screenshot.py same '$out/xterm-plain-detail.xwd' '$out/xterm-plain-goals.xwd'" || true
    settled xterm-plain-detail
    check png "$out/xterm-plain-detail.xwd" "$out/xterm-plain-detail.png"
    keys "q"
    until_ok 5 sh -c "! kill -0 $terminal" || kill "$terminal" 2>/dev/null || true
    terminal=""
    if check picture "$out/xterm-plain-goals.xwd" 0 "$ch" "$cw" "$ch" 4 1; then
        echo "real-terminals: xterm without sixel: the check took half blocks for a picture" >&2
        return 1
    fi
    if check picture "$out/xterm-plain-detail.xwd" 0 "$ch" "$cw" "$ch" 20 12 10; then
        echo "real-terminals: xterm without sixel: the check took the detail's half blocks for a picture" >&2
        return 1
    fi
    echo "real-terminals: xterm without sixel: half blocks, as expected"
}

# doctor_says NAME TEXT TERMINAL…: what the app decides in that terminal (`doctor` asks it as the
# app does, through script's pty so its output can be kept) includes TEXT.
doctor_says() {
    local name=$1 text=$2; shift 2
    local doctor="$out/$name-doctor.txt"
    rm -f "$doctor"
    "$@" -e sh -c "script -q -e -c '\"$bin\" doctor' '$doctor.part'; mv '$doctor.part' '$doctor'" >"$out/$name-doctor.log" 2>&1 &
    terminal=$!
    until_ok 30 test -s "$doctor" || true
    kill "$terminal" 2>/dev/null || true
    terminal=""
    if grep -a -q "$text" "$doctor" 2>/dev/null; then
        echo "real-terminals: $name: $(grep -a -o -m1 "$text[^[:cntrl:]]*" "$doctor")"
        return 0
    fi
    echo "real-terminals: $name: the app did not decide \"$text\": $(grep -a -o 'pictures: [^[:cntrl:]]*' "$doctor" 2>/dev/null | head -n 1)" >&2
    return 1
}

failed=0
half_blocks xterm -ti vt220 -b 0 -fa 'DejaVu Sans Mono' -fs 13 -geometry 100x30+0+0 -e env COLORTERM=truecolor "$bin" || failed=1
# xterm moves sixel pixels with its rows: the app scrolls them instead of writing rows again.
doctor_says xterm-sixel "sixel scrolls with the text: yes" xterm -ti vt340 -xrm 'XTerm*decTerminalID: vt340' || failed=1
run xterm-sixel xterm -ti vt340 -xrm 'XTerm*decTerminalID: vt340' -xrm 'XTerm*numColorRegisters: 256' \
    -b 0 -fa 'DejaVu Sans Mono' -fs 13 -geometry 100x30+0+0 -e env COLORTERM=truecolor "$bin" || failed=1
# kitty_run NAME KITTY…: the app in that kitty (100 × 30 cells, no padding).
kitty_run() {
    local name=$1; shift
    code=0
    run "$name" "$@" --config NONE -o font_family='DejaVu Sans Mono' -o font_size=10 \
        -o initial_window_width=100c -o initial_window_height=30c -o remember_window_size=no -o window_padding_width=0 \
        -e env COLORTERM=truecolor "$bin" || code=$?
    # kitty needs OpenGL 3.3; without it there is no window: said, not failed.
    if [ "$code" -eq 3 ]; then echo "real-terminals: $name did not start here (OpenGL?); skipped"; elif [ "$code" -ne 0 ]; then failed=1; fi
}
if command -v kitty >/dev/null; then
    # Debian 12's kitty (0.26.5) has no Unicode placeholders: pictures are placements.
    kitty_run kitty env LIBGL_ALWAYS_SOFTWARE=1 kitty
else
    echo "real-terminals: kitty is not installed; skipped"
fi
# A kitty with Unicode placeholders (0.28 and later): Debian 13's, unpacked beside
# (Scripts/kitty-trixie.sh). The app must say it draws by placeholders, and scrolling 40 rows
# must leave the avatars where a full repaint puts them.
placeholders="${QT_KITTY_TRIXIE:-$out/kitty-trixie}"
if [ "${QT_KITTY_PLACEHOLDERS:-1}" = 0 ]; then
    echo "real-terminals: kitty with placeholders: not asked (QT_KITTY_PLACEHOLDERS=0)"
elif [ -x "$placeholders/usr/kbin/kitty" ] || bash Scripts/kitty-trixie.sh setup "$placeholders" >"$out/kitty-trixie-setup.log" 2>&1; then
    export KITTY_TRIXIE="$placeholders"
    if doctor_says kitty-placeholders "kitty placeholders: yes" bash Scripts/kitty-trixie.sh run --config NONE; then
        kitty_run kitty-placeholders bash Scripts/kitty-trixie.sh run
    else
        failed=1
    fi
else
    # Not skipped: then nothing would check the placeholders. QT_KITTY_PLACEHOLDERS=0 says so.
    echo "real-terminals: kitty with placeholders: Debian 13's kitty could not be fetched ($(tail -n 1 "$out/kitty-trixie-setup.log")); QT_KITTY_PLACEHOLDERS=0 runs without it" >&2
    failed=1
fi
exit "$failed"
