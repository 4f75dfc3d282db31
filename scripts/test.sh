#!/usr/bin/env bash
# Set up a fresh machine and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet -e '.[dev]'
# End-to-end browser test (tests/webui/test_browser_e2e.py): Debian's Chromium,
# driven by Playwright's Python package (never `playwright install`).
if ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium chromium-driver \
            || echo "test.sh: could not install chromium; the browser test will be skipped" >&2
    fi
fi
python3 -c "import playwright" 2>/dev/null || python3 -m pip install --quiet playwright \
    || echo "test.sh: could not install playwright; the browser test will be skipped" >&2
# One pytest worker per core (pytest-xdist): the vision tests are CPU-bound.
python3 -m pytest -q -n auto "$@"
