#!/usr/bin/env bash
# A kitty that draws Unicode placeholders (0.28 and later) on Debian 12, whose own kitty is
# 0.26.5: Debian 13's kitty and the libraries it needs, unpacked into a folder, nothing installed.
#   Scripts/kitty-trixie.sh setup [DIR]     downloads and unpacks (about 85 MB; DIR: /tmp/kitty-trixie)
#   Scripts/kitty-trixie.sh run ARGS…       runs that kitty (KITTY_TRIXIE=DIR)
# Only kitty itself runs on Debian 13's C library (its own loader and library path); what it
# starts (the app, a shell) runs on the system's. apt runs with a private list, cache and status.
set -euo pipefail
case "${1:-}" in
setup)
    root=$(realpath -m "${2:-/tmp/kitty-trixie}")
    state="$root.apt"
    lib="$root/usr/lib/x86_64-linux-gnu"
    mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$root"
    echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$state/sources.list"
    : >"$state/status"
    apt=(-o Dir::Etc::sourcelist="$state/sources.list" -o Dir::Etc::sourceparts=/nonexistent -o Dir::State="$state" -o Dir::State::Lists="$state/lists"
         -o Dir::Cache="$state/cache" -o Dir::State::status="$state/status" -o APT::Architecture=amd64 -o Debug::NoLocking=1)
    apt-get "${apt[@]}" -qq update
    apt-get "${apt[@]}" -qq -o APT::Install-Recommends=0 -y -d install kitty libgl1 libegl1 libgl1-mesa-dri libglx-mesa0 \
        libegl-mesa0 libfontconfig1 libxi6 libxrandr2 libxinerama1 libxrender1 libxcursor1 libxkbcommon-x11-0 libcanberra0 libxext6 libxfixes3
    for deb in "$state"/cache/archives/*.deb; do dpkg-deb -x "$deb" "$root"; done
    # patchelf from the system's own release, unpacked beside.
    (cd "$state" && apt-get -qq download patchelf && dpkg-deb -x patchelf_*.deb patchelf)
    # kitty puts its own folder first on its children's PATH: a folder of its own keeps the
    # system's python3 and shell for them.
    mkdir -p "$root/usr/kbin"
    cp "$root/usr/bin/kitty" "$root/usr/bin/kitten" "$root/usr/kbin/"
    "$state/patchelf/usr/bin/patchelf" --set-interpreter "$lib/ld-linux-x86-64.so.2" --force-rpath \
        --set-rpath "$lib:$lib/pulseaudio" "$root/usr/kbin/kitty"
    KITTY_TRIXIE="$root" "$0" run --version
    ;;
run)
    shift
    root=$(realpath -m "${KITTY_TRIXIE:-/tmp/kitty-trixie}")
    lib="$root/usr/lib/x86_64-linux-gnu"
    export LIBGL_ALWAYS_SOFTWARE=1 LIBGL_DRIVERS_PATH="$lib/dri" __EGL_VENDOR_LIBRARY_DIRS="$root/usr/share/glvnd/egl_vendor.d"
    exec "$root/usr/kbin/kitty" "$@"
    ;;
*)
    echo "usage: Scripts/kitty-trixie.sh setup [DIR] | run ARGS…" >&2
    exit 64
    ;;
esac
