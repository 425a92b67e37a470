#!/usr/bin/env bash
# Installs qapital-tui under PREFIX (default /usr/local): the release binary, the man page
# generated from the command-line definitions, and completions for bash, zsh and fish.
#   Scripts/install.sh [PREFIX]          e.g. Scripts/install.sh ~/.local
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"

swift build -c release --product qapital-tui
bin="$(swift build -c release --show-bin-path)/qapital-tui"

# The man page: swift-argument-parser's GenerateManual plugin reads the same definitions as --help.
swift package plugin generate-manual
manual="$(find .build/plugins/GenerateManual/outputs -name 'qapital-tui.1' | head -n 1)"

install -d "$prefix/bin" "$prefix/share/man/man1" \
    "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
    "$prefix/share/fish/vendor_completions.d"
install -m 0755 "$bin" "$prefix/bin/qapital-tui"
install -m 0644 "$manual" "$prefix/share/man/man1/qapital-tui.1"
"$bin" --generate-completion-script bash > "$prefix/share/bash-completion/completions/qapital-tui"
"$bin" --generate-completion-script zsh > "$prefix/share/zsh/site-functions/_qapital-tui"
"$bin" --generate-completion-script fish > "$prefix/share/fish/vendor_completions.d/qapital-tui.fish"

echo "installed: $prefix/bin/qapital-tui, man qapital-tui, completions for bash, zsh and fish"
