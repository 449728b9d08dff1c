#!/usr/bin/env bash
# Installs everything the test suite needs and runs all of it, on a fresh machine:
#   a virtualenv (.venv) with tiergate and its dev tools, one with import-linter (.cache/lint-venv), the
#   pinned Claude Code CLI (npm, under .cache/),
#   the pinned oh-my-claudecode plugin that the neighbour tests load beside tiergate (npm, under .cache/omc),
#   Debian's chromium for the report's browser tests (apt-get, once: skipped when it is there),
#   then ruff, mypy --strict, the import contracts (lint-imports) and pytest (end-to-end tests in the real
#   CLI included), in parallel workers (pytest-xdist), printing the 20 slowest tests. The CLI, OMC and
#   Chromium are installed while the tests run: a test that needs one waits for it (testing/installs.py).
#
#   ./scripts/test.sh [--quick] [pytest arguments]
#
# --quick: the inner loop. Everything but the tests marked e2e (the real Claude Code CLI), browser
# (Chromium) and install (install.sh on a throw-away HOME); the CLI, OMC and Chromium are neither installed
# nor reachable, so that a test that needs one and is not marked fails instead of running.
# TIERGATE_TEST_WORKERS: how many workers (0: none, the suite in this one process); the default is one more
# than the CPUs: the tests spend their time in the processes they start (the CLI, hooks, git, the checks
# of the projects they make), and since tiergate's own processes are forked warm (testing/warmstart.py)
# a good share of it waiting on timeouts and sleeping checks. Measured on 2 CPUs, --quick: 179 s with 2
# workers, 165 s with 3, 171 s with 4.
set -euo pipefail
cd "$(dirname "$0")/.."

# The checks tiergate runs are isolated (src/tiergate/gate/sandbox.py): /tmp, /dev/shm, HOME and the
# workspace are covered where they run. The tests watch what those checks do through files beside each
# test's project, so the run's temporary files live where no check's sandbox covers them (nor in a git
# work tree: some tests need a folder outside git): a RAM-backed tmpfs mounted on the user's cache folder
# for the suite, in a mount namespace of the run's own (gone when it ends), where the kernel lets this
# user make one; else that folder on disk.
suite_root="${XDG_CACHE_HOME:-$HOME/.cache}/tiergate-suite"
if [ -z "${TIERGATE_SUITE_MOUNTED:-}" ] && unshare --mount --propagation private true 2> /dev/null; then
    mkdir -p "$suite_root"
    export TIERGATE_SUITE_MOUNTED=1
    exec unshare --mount --propagation private sh -c \
        'mount -t tmpfs -o size=16g,mode=1777 tiergate-suite "$1" && shift && exec "$@"' \
        sh "$suite_root" "$0" "$@"
fi

CLAUDE_CODE_VERSION="2.1.332"
# Keep in step with OMC_VERSION in testing/claude/neighbours.py.
OMC_VERSION="5.5.0"
PYTHON="${PYTHON:-python3}"
CLAUDE_BIN=".cache/claude-code/node_modules/.bin/claude"

quick=""
if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
fi

# pip resolves every requirement anew even when all are installed (5 to 7 s, a twentieth of --quick): an
# install is redone only when what it installed from changed (the stamp is the file's hash).
digest() {
    sha256sum <<< "$1" | cut -d' ' -f1
}

installed() {
    [ "$(cat "$1" 2>/dev/null)" = "$(digest "$2")" ]
}

stamp() {
    digest "$2" > "$1"
}

install_python() {
    if [ ! -x .venv/bin/python ]; then
        "$PYTHON" -m venv .venv
    fi
    local project
    project="$(cat pyproject.toml)"
    if ! installed .venv/.tiergate-installed "$project"; then
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
        stamp .venv/.tiergate-installed "$project"
    fi
    # The tests start tiergate in a few thousand processes, and where PYTHONDONTWRITEBYTECODE is set
    # (as on CI's machines) none of them writes the bytecode it compiled: each would compile tiergate
    # anew, a third of its start.
    .venv/bin/python -m compileall -q src > /dev/null
}

install_lint() {
    local requirement='import-linter>=2.1'
    if [ ! -x .cache/lint-venv/bin/lint-imports ]; then
        "$PYTHON" -m venv .cache/lint-venv
    fi
    if ! installed .cache/lint-venv/.tiergate-installed "$requirement"; then
        .cache/lint-venv/bin/python -m pip install --quiet --disable-pip-version-check "$requirement"
        stamp .cache/lint-venv/.tiergate-installed "$requirement"
    fi
}

install_claude() {
    if [ ! -x "$CLAUDE_BIN" ] || ! "$CLAUDE_BIN" --version 2>/dev/null | grep -q "^$CLAUDE_CODE_VERSION "; then
        mkdir -p .cache/claude-code
        npm install --silent --no-audit --no-fund --prefix .cache/claude-code "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
    fi
    echo "claude: $("$CLAUDE_BIN" --version)"
}

install_omc() {
    local omc_dir=".cache/omc"
    local omc_package="$omc_dir/node_modules/oh-my-claude-sisyphus/package.json"
    if [ ! -f "$omc_package" ] || ! grep -q "\"version\": \"$OMC_VERSION\"" "$omc_package"; then
        mkdir -p "$omc_dir"
        # As Claude Code's plugin cache holds it: no package's install script runs. Only better-sqlite3
        # has one, a native build from source here (prebuilt binaries are not reachable), 75 s of CPU on
        # the run's critical path; without its binding OMC takes its own file-lock fallback.
        npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$omc_dir" \
            "oh-my-claude-sisyphus@$OMC_VERSION"
    fi
    echo "oh-my-claudecode: $OMC_VERSION"
}

# The report's page is tested in a real browser: Debian's chromium, headless (testing/chromium.py).
install_chromium() {
    local chromium="${TIERGATE_CHROMIUM:-/usr/bin/chromium}"
    if [ ! -x "$chromium" ]; then
        local sudo=""
        if [ "$(id -u)" != 0 ]; then sudo="sudo -n"; fi
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
    fi
    echo "chromium: $("$chromium" --version)"
}

mkdir -p .cache
installs=".cache/installs"
beside=(claude omc chromium)  # installed beside the tests
install_jobs=()
install_lint > .cache/install-lint.log 2>&1 &
lint_job=$!
if [ -n "$quick" ]; then
    install_python
    unset TIERGATE_CLAUDE_BIN TIERGATE_INSTALLS
    export TIERGATE_CHROMIUM=/nonexistent/chromium-is-not-for-quick-runs
    selection=(-m "not e2e and not browser and not install")
else
    # The CLI, OMC and Chromium are for the tests that use them: installed beside the suite, which starts
    # once tiergate's own virtualenv is ready, and a test that needs one waits for it (testing/installs.py).
    # Each writes its exit code to <name>.status when it ends.
    rm -rf "$installs"
    mkdir -p "$installs"
    TIERGATE_INSTALLS="$(pwd)/$installs"
    export TIERGATE_INSTALLS
    for name in "${beside[@]}"; do
        (
            set +e
            (set -e; "install_$name") > "$installs/$name.log" 2>&1
            echo $? > "$installs/$name.status.part"
            mv "$installs/$name.status.part" "$installs/$name.status"
        ) &
        install_jobs+=($!)
    done
    install_python
    TIERGATE_CLAUDE_BIN="$(pwd)/$CLAUDE_BIN"
    export TIERGATE_CLAUDE_BIN
    selection=()
fi

wait "$lint_job" || { cat .cache/install-lint.log; exit 1; }

.venv/bin/ruff check .
.venv/bin/ruff format --check .
# The type and import checks take most of a minute on one CPU while the tests mostly wait on the processes
# they start: they run beside the tests, and the run fails if they do.
(
    .venv/bin/mypy
    # The tiergate under contract is the checkout's, not an installed one.
    PYTHONPATH=src .cache/lint-venv/bin/lint-imports
) > .cache/static-checks.log 2>&1 &
static_job=$!

# pytest deletes the oldest of its numbered temporary folders when a run ends, on the run's critical path:
# a whole earlier run, 25,000 files, about 5 s. This run has a folder of its own instead (a short path:
# Chromium's socket lives under it), and the folders of runs that have ended are deleted in the background
# while it runs, but for the newest, left to look at. A run holds its lock file until it exits.
suite_tmp="$suite_root"  # short: Chromium makes a socket under it, and a socket path has 107 bytes
mkdir -p "$suite_tmp"
basetemp="$(mktemp -d "$suite_tmp/XXXXXX")"
exec 8> "$basetemp.lock"
flock 8
ended=()
while IFS= read -r folder; do
    if [ "$folder" != "$basetemp" ] && flock -n "$folder.lock" true 2> /dev/null; then
        ended+=("$folder")
    fi
done < <(ls -dt "$suite_tmp"/*/ 2> /dev/null | sed 's:/$::')
if [ "${#ended[@]}" -gt 1 ]; then
    (for folder in "${ended[@]:1}"; do rm -rf "$folder" "$folder.lock"; done) > /dev/null 2>&1 8>&- &
fi

workers="${TIERGATE_TEST_WORKERS:-$(($(nproc) + 1))}"
parallel=()
if [ "$workers" != 0 ]; then
    # worksteal: each worker starts on a contiguous share of the tests, so that a module's one costly
    # fixture (an install, a logged night, the seed experiment) is made once, and a worker that is done
    # takes tests from the end of another's; the files with long tests come first (conftest.py), so that
    # none is left running alone at the end. (loadfile, measured: 34 s longer for --quick, its last
    # files being the two long kill tests; loadgroup does nothing under pytest 9.2.)
    parallel=(-n "$workers" --dist worksteal)
fi
status=0
.venv/bin/pytest "${parallel[@]}" --basetemp="$basetemp" --durations=20 "${selection[@]}" "$@" || status=$?
static=0
wait "$static_job" || static=$?
cat .cache/static-checks.log
installed=0
if [ -z "$quick" ]; then
    wait "${install_jobs[@]}"
    for name in "${beside[@]}"; do
        cat "$installs/$name.log"
        if [ "$(cat "$installs/$name.status")" != 0 ]; then
            echo "installing $name failed (above)" >&2
            installed=1
        fi
    done
fi
if [ "$static" != 0 ]; then
    echo "mypy or the import contracts failed (above)" >&2
    exit "$static"
fi
if [ "$installed" != 0 ]; then
    exit "$installed"
fi
exit "$status"
