#!/usr/bin/env bash
# Release artefacts in dist/: a tarball and a .deb of a release build with the Swift runtime
# linked in (--static-swift-stdlib), each with the man page, bash/zsh/fish completions, the README
# and the weekly round-ups timer (off until enabled). The .deb's Depends: are computed from what
# the binary links (each NEEDED library → its package by dpkg -S → that package's version).
#   Scripts/package.sh          prints the two files and their sizes
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/FeedModel/Support/FeedModelInfo.swift)
arch=$(dpkg --print-architecture)
# A build folder of its own: SwiftPM does not link again when only --static-swift-stdlib changes.
scratch=.build-static
swift build -c release --product qapital-tui --static-swift-stdlib --scratch-path "$scratch"
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/qapital-tui"

rm -rf dist/stage && mkdir -p dist/stage
stage=dist/stage
# The man page from the command-line definitions (swift-argument-parser's GenerateManual).
swift package plugin generate-manual >/dev/null
manual="$(find .build/plugins/GenerateManual/outputs -name 'qapital-tui.1' -print -quit)"

# One tree, laid out as Debian places it; the tarball is the same tree under a versioned folder.
root=$stage/root
install -d "$root/usr/bin" "$root/usr/share/man/man1" "$root/usr/share/bash-completion/completions" \
    "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d" \
    "$root/usr/share/doc/qapital-tui" "$root/usr/lib/systemd/user"
install -m 0755 -s "$bin" "$root/usr/bin/qapital-tui"
gzip -9n < "$manual" > "$root/usr/share/man/man1/qapital-tui.1.gz"
"$bin" --generate-completion-script bash > "$root/usr/share/bash-completion/completions/qapital-tui"
"$bin" --generate-completion-script zsh > "$root/usr/share/zsh/vendor-completions/_qapital-tui"
"$bin" --generate-completion-script fish > "$root/usr/share/fish/vendor_completions.d/qapital-tui.fish"
install -m 0644 README.md docs/install.md docs/cli.md "$root/usr/share/doc/qapital-tui/"
install -m 0644 Packaging/systemd/qapital-tui-roundups.service Packaging/systemd/qapital-tui-roundups.timer \
    Packaging/systemd/qapital-tui-rules.service Packaging/systemd/qapital-tui-rules.timer "$root/usr/lib/systemd/user/"
chmod 0644 "$root"/usr/share/bash-completion/completions/* "$root"/usr/share/zsh/vendor-completions/* \
    "$root"/usr/share/fish/vendor_completions.d/*

# Depends: every shared library the binary needs, by the package that ships it.
depends=$(bash Scripts/shlib-depends.sh "$root/usr/bin/qapital-tui")

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: qapital-tui
Version: $version
Architecture: $arch
Maintainer: qapital-tui developers <qapital-tui@users.noreply.github.com>
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Homepage: https://github.com/qapital-tui/qapital-tui
Description: savings goals, activity and round-ups in the terminal
 A full-screen terminal client for savings goals, their activity, weekly
 round-ups and achievements: on a built-in demo, a Qapital-style API, or
 a bank account (docs/banks.md). Every view is also a command (goals,
 activity, roundups, export) for scripts, cron and hledger.
CONTROL
deb=dist/qapital-tui_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
rm -rf "$root/DEBIAN"

tree=qapital-tui-$version-linux-$(uname -m)
rm -rf "$stage/$tree" && mkdir -p "$stage/$tree"
cp -a "$root/usr/." "$stage/$tree/"
cp README.md "$stage/$tree/"
tarball=dist/$tree.tar.gz
tar -C "$stage" --owner=0 --group=0 -czf "$tarball" "$tree"
rm -rf "$stage"

echo "Depends: $depends"
ls -l "$deb" "$tarball" | awk '{ printf "%s  %.1f MB\n", $NF, $5 / 1048576 }'
