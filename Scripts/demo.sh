#!/usr/bin/env bash
# The README's first command: installs what building needs (Scripts/bootstrap.sh), then runs the
# app on its built-in demo data. Arguments go to the app (`Scripts/demo.sh --theme light`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/bootstrap.sh run
exec swift run qapital-tui "$@"
