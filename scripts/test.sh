#!/usr/bin/env bash
# Set up a fresh machine and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet -e '.[dev]'
python3 -m pytest -q "$@"
