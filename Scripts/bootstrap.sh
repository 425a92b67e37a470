#!/usr/bin/env bash
# Installs the Debian packages that building (run) or testing (test) qapital-tui needs and this
# machine lacks, saying which and why; with sudo when not root. Where it may not install, it stops
# with the exact command to run.
#   Scripts/bootstrap.sh run|test [--plan]     --plan: say what would be done, change nothing
# The package query is dpkg-query, the user id `id -u` and sudo `sudo`, or for the tests
# $QT_DPKG_QUERY, $QT_UID and $QT_SUDO.
set -euo pipefail

purpose=${1:-run}
plan=no
[ "${2:-}" = --plan ] && plan=yes
case "$purpose" in
    run|test) ;;
    *) echo "bootstrap: say run or test, not '$purpose'" >&2; exit 2 ;;
esac

# package|why
needs=(
    "libncurses-dev|the terminal (ncursesw)"
    "libsqlite3-dev|the offline cache (SQLite)"
    "libpng-dev|goal photos and avatars (PNG)"
    "libjpeg-dev|goal photos and avatars (JPEG)"
    "libcurl4-openssl-dev|HTTP to the servers and banks (libcurl)"
)
[ "$purpose" = test ] && needs+=("hledger|the tests read the ledger export back with hledger"
                                 "tmux|the tests read where the cursor stands in a real terminal")

query=${QT_DPKG_QUERY:-dpkg-query}
missing=()
reasons=()
for entry in "${needs[@]}"; do
    package=${entry%%|*}
    if ! "$query" -W -f='${Status}\n' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
        reasons+=("  $package: ${entry#*|}")
    fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

what="building"
[ "$purpose" = test ] && what="building and testing"
echo "bootstrap: installing what $what qapital-tui needs:" >&2
printf '%s\n' "${reasons[@]}" >&2
command="apt-get install -y ${missing[*]}"
uid=${QT_UID:-$(id -u)}
if [ "$uid" = 0 ]; then
    prefix=""
elif command -v "${QT_SUDO:-sudo}" >/dev/null 2>&1; then
    prefix="${QT_SUDO:-sudo} "
else
    echo "bootstrap: not root and no sudo; run as root, then again: $command" >&2
    exit 1
fi
if [ "$plan" = yes ]; then
    echo "${prefix}apt-get update"
    echo "${prefix}$command"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: no apt-get here; install the packages above (or your system's own), then run this again" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! ${prefix}apt-get update -qq || ! ${prefix}apt-get install -y -qq "${missing[@]}"; then
    echo "bootstrap: the install failed; run it yourself: ${prefix}apt-get update && ${prefix}$command" >&2
    exit 1
fi
