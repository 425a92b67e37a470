#!/usr/bin/env bash
# The Debian Depends: of a binary: each library it needs (its NEEDED entries, found as the
# loader finds them) → the package that ships that file (dpkg -S) → "package (>= its version)".
#   Scripts/shlib-depends.sh BINARY
set -euo pipefail
binary=$1
packages=()
for needed in $(objdump -p "$binary" | awk '/NEEDED/ { print $2 }'); do
    path=$(ldconfig -p | awk -v lib="$needed" '$1 == lib && !found { print $NF; found = 1 }')
    [ -n "$path" ] || { echo "shlib-depends: $needed is not installed here" >&2; exit 1; }
    real=$(readlink -f "$path")
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$real" 2>/dev/null || true)
    [ -n "$owner" ] || { echo "shlib-depends: no package ships $path" >&2; exit 1; }
    package=${owner%%:*}
    package=${package%%,*}
    packages+=("$package")
done
for package in $(printf '%s\n' "${packages[@]}" | sort -u); do
    version=$(dpkg-query -W -f='${Version}' "$package")
    # The upstream version without the Debian revision is what another release would still satisfy.
    printf '%s (>= %s)\n' "$package" "${version%-*}"
done | paste -sd, | sed 's/,/, /g'
