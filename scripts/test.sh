#!/usr/bin/env bash
# Installs everything the test suite needs and runs all of it, on a fresh machine:
#   a virtualenv (.venv) with tiergate and its dev tools, the pinned Claude Code CLI (npm, under .cache/),
#   the pinned oh-my-claudecode plugin that the neighbour tests load beside tiergate (npm, under .cache/omc),
#   Debian's chromium for the report's browser tests (apt-get, once: skipped when it is there),
#   then ruff, mypy --strict, the import contracts (lint-imports) and pytest (end-to-end tests in the real
#   CLI included).
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

CLAUDE_CODE_VERSION="2.1.332"
# Keep in step with OMC_VERSION in testing/claude/neighbours.py.
OMC_VERSION="5.5.0"
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'

claude_dir=".cache/claude-code"
claude_bin="$claude_dir/node_modules/.bin/claude"
if [ ! -x "$claude_bin" ] || ! "$claude_bin" --version 2>/dev/null | grep -q "^$CLAUDE_CODE_VERSION "; then
    mkdir -p "$claude_dir"
    npm install --silent --no-audit --no-fund --prefix "$claude_dir" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
fi
TIERGATE_CLAUDE_BIN="$(pwd)/$claude_bin"
export TIERGATE_CLAUDE_BIN
echo "claude: $("$TIERGATE_CLAUDE_BIN" --version)"

omc_dir=".cache/omc"
omc_package="$omc_dir/node_modules/oh-my-claude-sisyphus/package.json"
if [ ! -f "$omc_package" ] || ! grep -q "\"version\": \"$OMC_VERSION\"" "$omc_package"; then
    mkdir -p "$omc_dir"
    npm install --silent --no-audit --no-fund --prefix "$omc_dir" "oh-my-claude-sisyphus@$OMC_VERSION"
fi
echo "oh-my-claudecode: $OMC_VERSION"

# The report's page is tested in a real browser: Debian's chromium, headless (testing/chromium.py).
chromium="${TIERGATE_CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
    sudo=""
    if [ "$(id -u)" != 0 ]; then sudo="sudo -n"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
echo "chromium: $("$chromium" --version)"

.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/lint-imports
.venv/bin/pytest "$@"
