#!/usr/bin/env bash
# Installs tiergate for this user, from this checkout:
#   - a virtualenv at $TIERGATE_HOME/venv holding tiergate (a regular install, not an editable one),
#   - the link $TIERGATE_BIN_DIR/tiergate to its command,
#   - a copy of the plugin's files at $TIERGATE_HOME/plugin, registered in Claude Code as the local marketplace
#     "tiergate-local" and installed from it (user scope), so the next session runs tiergate's hooks.
#
# Why a copy of the plugin rather than the checkout itself: Claude Code (2.1.332) reads a directory
# marketplace's plugin in place and stops loading it when that folder moves or goes, and on install it also
# copies the whole folder (.venv, .cache, node_modules included) into ~/.claude/plugins/cache. With the
# plugin files and the venv both under $TIERGATE_HOME, the checkout can be moved or deleted afterwards; to
# update, pull and run install.sh again.
#
# Running it again changes only what is out of date (and says "nothing changed" when nothing is).
# ~/.claude/settings.json is backed up before any command that edits it.
#
#   ./install.sh              install or update
#   ./install.sh --uninstall  remove the plugin, the marketplace, the venv, the plugin copy and the link
#
# Environment: TIERGATE_HOME (default ~/.local/share/tiergate), TIERGATE_BIN_DIR (default ~/.local/bin),
# CLAUDE_BIN (default: claude on PATH), PYTHON (default python3), CLAUDE_CONFIG_DIR (default ~/.claude).
set -euo pipefail

CHECKOUT="$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TIERGATE_HOME="${TIERGATE_HOME:-$HOME/.local/share/tiergate}"
BIN_DIR="${TIERGATE_BIN_DIR:-$HOME/.local/bin}"
CLAUDE="${CLAUDE_BIN:-claude}"
PYTHON="${PYTHON:-python3}"
SETTINGS="${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json"
VENV="$TIERGATE_HOME/venv"
PLUGIN_COPY="$TIERGATE_HOME/plugin"
MARKETPLACE="tiergate-local"
PLUGIN_ID="tiergate@$MARKETPLACE"
# Everything Claude Code loads from the plugin; the Python package goes into the venv instead.
PLUGIN_PARTS=(.claude-plugin hooks agents commands README.md LICENSE)
# Records which source the venv was built from, so an unchanged checkout is not reinstalled.
SOURCE_STAMP="$VENV/tiergate-source"

changed=0
backed_up=0
# A settings file that Claude Code creates during this run holds nothing of the user's to back up.
settings_existed=0
if [ -f "$SETTINGS" ]; then settings_existed=1; fi

say() { printf 'tiergate: %s\n' "$*"; }
did() { changed=1; say "$@"; }
die() { say "error: $*" >&2; exit 1; }

main() {
    case "${1:-}" in
        "") install ;;
        --uninstall) uninstall ;;
        -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (use --uninstall, or no option to install)" ;;
    esac
}

install() {
    check_python
    install_venv
    copy_plugin
    link_command
    register_plugin
    if [ "$changed" -eq 0 ]; then
        say "nothing changed: tiergate is installed and up to date"
    fi
}

check_python() {
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found: tiergate needs Python 3.11 or newer"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
        die "tiergate needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)"
}

install_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        mkdir -p "$TIERGATE_HOME"
        "$PYTHON" -m venv "$VENV"
        did "created the virtualenv $VENV"
    fi
    local stamp
    stamp="$(source_stamp)"
    if [ -x "$VENV/bin/tiergate" ] && [ -f "$SOURCE_STAMP" ] && [ "$(cat "$SOURCE_STAMP")" = "$stamp" ]; then
        say "unchanged: tiergate $(installed_version) in $VENV"
        return
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$CHECKOUT" ||
        die "pip could not install $CHECKOUT into $VENV"
    printf '%s\n' "$stamp" >"$SOURCE_STAMP"
    did "installed tiergate $(installed_version) from $CHECKOUT into $VENV"
}

# The version plus a digest of everything pip builds from (pyproject.toml and src/).
source_stamp() {
    "$PYTHON" - "$CHECKOUT" <<'PY'
import hashlib, sys, tomllib
from pathlib import Path

root = Path(sys.argv[1])
digest = hashlib.sha256()
files = [root / "pyproject.toml", *sorted(p for p in (root / "src").rglob("*") if p.is_file())]
for path in files:
    if "__pycache__" in path.parts:
        continue
    digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
print(f"{version} {digest.hexdigest()}")
PY
}

installed_version() {
    "$VENV/bin/python" -c 'import tiergate; print(tiergate.__version__)'
}

copy_plugin() {
    # Staged outside $TIERGATE_HOME, so that an unchanged plugin leaves even its folder's mtime alone.
    STAGED="$(mktemp -d "${TMPDIR:-/tmp}/tiergate-plugin.XXXXXX")"
    trap 'rm -rf "$STAGED"' EXIT
    local part
    for part in "${PLUGIN_PARTS[@]}"; do
        if [ -e "$CHECKOUT/$part" ]; then
            cp -Rp "$CHECKOUT/$part" "$STAGED/$part"
        fi
    done
    find "$STAGED" -name '__pycache__' -prune -exec rm -rf {} +
    if [ -d "$PLUGIN_COPY" ] && diff -r "$STAGED" "$PLUGIN_COPY" >/dev/null 2>&1; then
        say "unchanged: plugin files in $PLUGIN_COPY"
        return
    fi
    local verb="copied"
    if [ -d "$PLUGIN_COPY" ]; then
        verb="updated"
        rm -rf "$PLUGIN_COPY"
    fi
    mkdir -p "$TIERGATE_HOME"
    cp -Rp "$STAGED" "$PLUGIN_COPY"
    chmod 755 "$PLUGIN_COPY"
    did "$verb the plugin files in $PLUGIN_COPY"
}

link_command() {
    local link="$BIN_DIR/tiergate" target="$VENV/bin/tiergate"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$target" ]; then
        say "unchanged: $link"
    elif [ -e "$link" ] && [ ! -L "$link" ]; then
        say "not linking $link: a file that is not tiergate's link is there; run $target instead"
    else
        mkdir -p "$BIN_DIR"
        ln -sfn "$target" "$link"
        did "linked $link -> $target"
    fi
    case ":$PATH:" in
        *":$BIN_DIR:"*) ;;
        *) say "note: $BIN_DIR is not on your PATH; add it (export PATH=\"$BIN_DIR:\$PATH\") to run tiergate" ;;
    esac
}

register_plugin() {
    if ! command -v "$CLAUDE" >/dev/null 2>&1; then
        say "Claude Code ($CLAUDE) not found: the plugin was not registered; install Claude Code, then run install.sh again"
        return
    fi
    local marketplace_path
    marketplace_path="$(claude_json plugin marketplace list --json | json_field marketplace "$MARKETPLACE")"
    if [ "$marketplace_path" = "$PLUGIN_COPY" ]; then
        say "unchanged: marketplace $MARKETPLACE ($PLUGIN_COPY)"
    else
        if [ -n "$marketplace_path" ]; then
            backup_settings
            "$CLAUDE" plugin marketplace remove "$MARKETPLACE" >/dev/null
            did "removed the marketplace $MARKETPLACE that pointed to $marketplace_path"
        fi
        backup_settings
        "$CLAUDE" plugin marketplace add "$PLUGIN_COPY" >/dev/null
        did "added the marketplace $MARKETPLACE ($PLUGIN_COPY) to Claude Code"
    fi
    local plugin_state
    plugin_state="$(claude_json plugin list --json | json_field plugin "$PLUGIN_ID")"
    case "$plugin_state" in
        enabled) say "unchanged: plugin $PLUGIN_ID is installed and enabled" ;;
        disabled)
            backup_settings
            "$CLAUDE" plugin enable "$PLUGIN_ID" >/dev/null
            did "enabled the plugin $PLUGIN_ID"
            ;;
        *)
            backup_settings
            "$CLAUDE" plugin install "$PLUGIN_ID" --scope user >/dev/null
            did "installed the plugin $PLUGIN_ID in Claude Code (user scope; active from the next session)"
            ;;
    esac
}

# A `claude ... --json` listing; "[]" when the CLI cannot answer, so callers see "absent".
claude_json() {
    "$CLAUDE" "$@" 2>/dev/null || printf '[]\n'
}

# From a JSON listing on stdin: a marketplace's folder ("marketplace NAME"), or whether a plugin is
# "enabled" or "disabled" ("plugin ID"); empty when absent.
json_field() {
    "$PYTHON" -c '
import json, sys
kind, name = sys.argv[1], sys.argv[2]
try:
    entries = json.load(sys.stdin)
except ValueError:
    entries = []
for entry in entries if isinstance(entries, list) else []:
    if kind == "marketplace" and entry.get("name") == name:
        print(entry.get("installLocation") or entry.get("path") or "")
    elif kind == "plugin" and entry.get("id") == name:
        print("enabled" if entry.get("enabled") else "disabled")
' "$1" "$2"
}

backup_settings() {
    if [ "$backed_up" -eq 1 ] || [ "$settings_existed" -eq 0 ]; then
        return
    fi
    local base backup n=1
    base="$SETTINGS.tiergate-backup-$(date +%Y%m%d-%H%M%S)"
    backup="$base"
    while [ -e "$backup" ]; do
        backup="$base-$n"
        n=$((n + 1))
    done
    cp -p "$SETTINGS" "$backup"
    backed_up=1
    did "backed up $SETTINGS to $backup"
}

uninstall() {
    if command -v "$CLAUDE" >/dev/null 2>&1; then
        if [ -n "$(claude_json plugin list --json | json_field plugin "$PLUGIN_ID")" ]; then
            backup_settings
            "$CLAUDE" plugin uninstall "$PLUGIN_ID" --scope user >/dev/null
            did "uninstalled the plugin $PLUGIN_ID from Claude Code"
        fi
        if [ -n "$(claude_json plugin marketplace list --json | json_field marketplace "$MARKETPLACE")" ]; then
            backup_settings
            "$CLAUDE" plugin marketplace remove "$MARKETPLACE" >/dev/null
            did "removed the marketplace $MARKETPLACE from Claude Code"
        fi
    else
        say "Claude Code ($CLAUDE) not found: if the plugin is registered, remove it with: claude plugin uninstall $PLUGIN_ID; claude plugin marketplace remove $MARKETPLACE"
    fi
    # Claude Code leaves the uninstalled plugin's cached copy (and any data folder) behind.
    local claude_dir
    claude_dir="$(dirname "$SETTINGS")"
    remove_dir "$claude_dir/plugins/cache/$MARKETPLACE" "Claude Code's cached copy of the plugin"
    remove_dir "$claude_dir/plugins/data/tiergate-$MARKETPLACE" "the plugin's data folder"
    local link="$BIN_DIR/tiergate"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$VENV/bin/tiergate" ]; then
        rm -f "$link"
        did "removed the link $link"
    fi
    remove_dir "$VENV" "the virtualenv"
    remove_dir "$PLUGIN_COPY" "the plugin files"
    if [ -d "$TIERGATE_HOME" ] && rmdir "$TIERGATE_HOME" 2>/dev/null; then
        did "removed $TIERGATE_HOME"
    fi
    if [ "$changed" -eq 0 ]; then
        say "nothing to remove: tiergate is not installed"
    fi
}

remove_dir() {
    if [ -d "$1" ]; then
        rm -rf "$1"
        did "removed $2 ($1)"
    fi
}

main "$@"
