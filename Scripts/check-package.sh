#!/usr/bin/env bash
# Checks the release artefacts of Scripts/package.sh in clean Debian bookworm roots made with
# `debootstrap --variant=minbase` (as root; debootstrap and the Debian mirror needed):
#  1. the .deb installed with `apt-get install ./qapital-tui_*.deb` (apt resolves its Depends:),
#     then --version, goals, export --output ledger, serve answering a request, and the TUI under
#     tmux (first frame, tab 2, q: exit 0, the terminal back to the shell);
#  2. the tarball in a second root holding only its runtime libraries: --version and goals.
#   Scripts/check-package.sh         (roots under $CHECK_ROOT, default /tmp/qt-check; kept for reruns)
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls dist/qapital-tui_*.deb | tail -n 1)
tarball=$(ls dist/qapital-tui-*.tar.gz | tail -n 1)
work=${CHECK_ROOT:-/tmp/qt-check}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT

make_root() {
    local dir=$1
    if [ ! -x "$dir/usr/bin/apt-get" ]; then
        echo "check: debootstrap $dir" >&2
        mkdir -p "$dir"
        debootstrap --variant=minbase bookworm "$dir" "$mirror" >/dev/null
    fi
    cp /etc/resolv.conf "$dir/etc/resolv.conf"
    for m in proc dev dev/pts; do
        mkdir -p "$dir/$m"
        if ! mountpoint -q "$dir/$m"; then
            case $m in proc) mount -t proc proc "$dir/proc" ;; *) mount --bind "/$m" "$dir/$m" ;; esac
        fi
        mounted+=("$dir/$m")
    done
}
in_root() {
    chroot "$1" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=xterm-256color \
        bash -euo pipefail -c "$2"
}
check() { echo "check: $*" >&2; }

# 1. The .deb.
root=$work/deb
make_root "$root"
cp "$deb" "$root/tmp/"
in_root "$root" "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/$(basename "$deb") >/dev/null"
check "installed $(basename "$deb"): $(in_root "$root" "dpkg-query -W -f='\${Depends}' qapital-tui")"
in_root "$root" 'qapital-tui --version'
in_root "$root" 'qapital-tui goals | head -n 3'
in_root "$root" 'qapital-tui export --output ledger | grep -c "^[0-9]" | sed "s/^/ledger transactions: /"'
in_root "$root" 'qapital-tui serve --port 18080 2>/dev/null & server=$!
    for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/18080) 2>/dev/null && break; sleep 0.1; done
    exec 3<>/dev/tcp/127.0.0.1/18080
    printf "GET /savingsgoals HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" >&3
    head -n 1 <&3
    kill $server; wait $server || true'
# The TUI: tmux is the test's own tool, installed for it.
in_root "$root" 'DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null'
in_root "$root" '
    wait_for() { for _ in $(seq 100); do tmux capture-pane -p -t qt | grep -q "$1" && return 0; sleep 0.1; done
                 echo "no \"$1\" on screen:"; tmux capture-pane -p -t qt; return 1; }
    tmux new-session -d -s qt -x 100 -y 30 "qapital-tui --no-cache; echo EXIT=\$?; sleep 60"
    wait_for "1 Goals"
    tmux send-keys -t qt 2
    wait_for "of "
    tmux send-keys -t qt q
    wait_for "EXIT=0"
    tmux capture-pane -p -t qt | grep -v "^$" | tail -n 1
    tmux kill-server'
check "the .deb: commands and the TUI work in a clean bookworm"

# 2. The tarball, with only its runtime libraries.
root=$work/tarball
make_root "$root"
in_root "$root" 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libncursesw6 libcurl4 libpng16-16 libjpeg62-turbo libsqlite3-0 >/dev/null'
tar -C "$root/opt" -xzf "$tarball"
tree=$(basename "$tarball" .tar.gz)
in_root "$root" "/opt/$tree/bin/qapital-tui --version && /opt/$tree/bin/qapital-tui goals | head -n 3"
check "the tarball runs in a clean bookworm with its runtime libraries"
