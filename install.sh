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
# ~/.claude/settings.json, when it exists, is copied to settings.json.tiergate-backup beside it before a run's
# first command that edits it (one backup, the settings as they were before tiergate's latest change).
#
#   ./install.sh              install or update
#   ./install.sh --uninstall  remove the plugin, the marketplace, the venv, the plugin copy and the link, and
#                             whatever else install.sh made (folders, a settings file Claude Code created for
#                             it, the settings backup when uninstalling changed only tiergate's entries)
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
PLUGIN_PARTS=(.claude-plugin hooks bin agents commands README.md LICENSE)
# Records which source the venv was built from, so an unchanged checkout is not reinstalled.
SOURCE_STAMP="$VENV/tiergate-source"
# What install.sh made that was not there before (folders, Claude Code's files made for it), one
# "dir PATH" or "file PATH" a line, so that --uninstall removes those and nothing of the user's.
MADE_RECORD="$TIERGATE_HOME/made-by-install"
SETTINGS_BACKUP="$SETTINGS.tiergate-backup"
CLAUDE_DIR="$(dirname "$SETTINGS")"
# Where tiergate keeps its state when it runs (the sealing key, each project's loops and backups).
STATE_HOME="${XDG_STATE_HOME:-$HOME/.local/state}"
GET_CLAUDE="npm install -g @anthropic-ai/claude-code"

changed=0
backed_up=0
claude_found=1
made=()
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
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (use --uninstall, or no option to install)" ;;
    esac
}

install() {
    check_python
    install_venv
    copy_plugin
    link_command
    register_plugin
    # tiergate makes its state folder when it first runs (the demo, a loop): a folder absent now is noted,
    # so that --uninstall removes it once tiergate's state in it has gone.
    if [ ! -e "$STATE_HOME" ]; then made+=("dir $STATE_HOME"); fi
    record_made
    if [ "$claude_found" -eq 0 ]; then
        # Not "up to date": without Claude Code nothing runs tiergate's hooks, whatever else is in place.
        say "Claude Code ($CLAUDE) not found: the plugin is not registered, so no session runs tiergate's hooks"
        say "get Claude Code with: $GET_CLAUDE; then run install.sh again to register the plugin"
    elif [ "$changed" -eq 0 ]; then
        say "nothing changed: tiergate is installed and up to date"
    fi
}

# mkdir -p that remembers the folders it made (for record_made).
make_dir() {
    local dir="$1" missing=()
    while [ ! -e "$dir" ]; do
        missing=("$dir" "${missing[@]}")
        dir="$(dirname "$dir")"
    done
    mkdir -p "$1"
    local each
    for each in "${missing[@]}"; do
        made+=("dir $each")
    done
}

# Adds what this run made to the record, once each.
record_made() {
    [ "${#made[@]}" -gt 0 ] || return 0
    local entry
    for entry in "${made[@]}"; do
        if [ ! -f "$MADE_RECORD" ] || ! grep -qxF -- "$entry" "$MADE_RECORD"; then
            printf '%s\n' "$entry" >>"$MADE_RECORD"
        fi
    done
}

check_python() {
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found: tiergate needs Python 3.11 or newer"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
        die "tiergate needs Python 3.11 or newer; $PYTHON is $("$PYTHON" -V 2>&1)"
}

install_venv() {
    if [ ! -x "$VENV/bin/python" ]; then
        make_dir "$TIERGATE_HOME"
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
    make_dir "$TIERGATE_HOME"
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
        make_dir "$BIN_DIR"
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
        claude_found=0
        return
    fi
    # Claude Code makes its plugins folder (and the settings file) for the first plugin: tiergate's, then.
    local had_plugins=1
    if [ ! -e "$CLAUDE_DIR/plugins" ]; then had_plugins=0; fi
    register_with_claude
    if [ "$had_plugins" -eq 0 ] && [ -d "$CLAUDE_DIR/plugins" ]; then made+=("dir $CLAUDE_DIR/plugins"); fi
    if [ "$settings_existed" -eq 0 ] && [ -f "$SETTINGS" ]; then made+=("file $SETTINGS"); fi
}

register_with_claude() {
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

# One backup beside the settings, replaced by each run that edits them: a backup per run would pile up.
backup_settings() {
    if [ "$backed_up" -eq 1 ] || [ "$settings_existed" -eq 0 ]; then
        return
    fi
    cp -p "$SETTINGS" "$SETTINGS_BACKUP"
    backed_up=1
    did "backed up $SETTINGS to $SETTINGS_BACKUP"
}

uninstall() {
    local record=()
    if [ -f "$MADE_RECORD" ]; then
        mapfile -t record <"$MADE_RECORD"
    fi
    unregister_plugin
    # Claude Code leaves the uninstalled plugin's cached copy (and any data folder) behind.
    remove_dir "$CLAUDE_DIR/plugins/cache/$MARKETPLACE" "Claude Code's cached copy of the plugin"
    remove_dir "$CLAUDE_DIR/plugins/data/tiergate-$MARKETPLACE" "the plugin's data folder"
    local link="$BIN_DIR/tiergate"
    if [ -L "$link" ] && [ "$(readlink "$link")" = "$VENV/bin/tiergate" ]; then
        rm -f "$link"
        did "removed the link $link"
    fi
    remove_dir "$VENV" "the virtualenv"
    remove_dir "$PLUGIN_COPY" "the plugin files"
    rm -f "$MADE_RECORD"
    if [ -d "$TIERGATE_HOME" ] && rmdir "$TIERGATE_HOME" 2>/dev/null; then
        did "removed $TIERGATE_HOME"
    fi
    remove_state
    remove_made "${record[@]}"
    if [ "$changed" -eq 0 ]; then
        say "nothing to remove: tiergate is not installed"
    fi
}

unregister_plugin() {
    if ! command -v "$CLAUDE" >/dev/null 2>&1; then
        say "Claude Code ($CLAUDE) not found: if the plugin is registered, remove it with: claude plugin uninstall $PLUGIN_ID; claude plugin marketplace remove $MARKETPLACE"
        return
    fi
    # The settings as they were, kept aside: beside them only if uninstalling changed more than tiergate's.
    local before=""
    if [ -f "$SETTINGS" ]; then
        before="$(mktemp "${TMPDIR:-/tmp}/tiergate-settings.XXXXXX")"
        cp -p "$SETTINGS" "$before"
    fi
    local edited=0
    if [ -n "$(claude_json plugin list --json | json_field plugin "$PLUGIN_ID")" ]; then
        "$CLAUDE" plugin uninstall "$PLUGIN_ID" --scope user >/dev/null
        edited=1
        did "uninstalled the plugin $PLUGIN_ID from Claude Code"
    fi
    if [ -n "$(claude_json plugin marketplace list --json | json_field marketplace "$MARKETPLACE")" ]; then
        "$CLAUDE" plugin marketplace remove "$MARKETPLACE" >/dev/null
        edited=1
        did "removed the marketplace $MARKETPLACE from Claude Code"
    fi
    if [ "$edited" -eq 1 ] && [ -n "$before" ] && [ -f "$SETTINGS" ]; then
        settle_settings "$before"
    fi
    if [ -n "$before" ]; then rm -f "$before"; fi
}

# After Claude Code removed tiergate's entries: drop the `enabledPlugins` and `extraKnownMarketplaces` it
# left empty (tiergate's entries were all they held), then compare with the settings as they were
# (`$1`) less tiergate's entries. The same: the settings are as before tiergate, so its backup goes.
# Otherwise Claude Code changed more: the settings as they were are kept as the one backup.
settle_settings() {
    local outcome
    outcome="$("$PYTHON" - "$SETTINGS" "$1" "$PLUGIN_ID" "$MARKETPLACE" <<'PY'
import json, os, sys

settings, before_path, plugin, marketplace = sys.argv[1:]
ours = {"enabledPlugins": plugin, "extraKnownMarketplaces": marketplace}
try:
    with open(settings, encoding="utf-8") as f:
        text = f.read()
    now = json.loads(text)
    with open(before_path, encoding="utf-8") as f:
        before = json.load(f)
except (OSError, ValueError):
    print("unreadable")
    sys.exit(0)
if not isinstance(now, dict) or not isinstance(before, dict):
    print("unreadable")
    sys.exit(0)
expected = dict(before)
for key, name in ours.items():
    held = before.get(key)
    if isinstance(held, dict) and name in held:
        rest = {k: v for k, v in held.items() if k != name}
        if rest:
            expected[key] = rest
        else:
            expected.pop(key)
            if now.get(key) == {}:
                now.pop(key)
if now != json.loads(text):
    tmp = settings + ".tiergate-tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(now, indent=2) + ("\n" if text.endswith("\n") else ""))
    os.chmod(tmp, os.stat(settings).st_mode & 0o7777)
    os.replace(tmp, settings)
print("same" if now == expected else "changed")
PY
)"
    if [ "$outcome" = "unreadable" ]; then
        cp -p "$1" "$SETTINGS_BACKUP"
        did "kept the settings as they were before uninstalling in $SETTINGS_BACKUP: they could not be compared (not a JSON object)"
    elif [ "$outcome" = "same" ]; then
        if [ -f "$SETTINGS_BACKUP" ]; then
            rm -f "$SETTINGS_BACKUP"
            did "removed $SETTINGS_BACKUP: the settings are as they were before tiergate"
        fi
    else
        cp -p "$1" "$SETTINGS_BACKUP"
        did "kept the settings as they were before uninstalling in $SETTINGS_BACKUP: Claude Code changed more than tiergate's entries"
    fi
}

# tiergate's state folder goes when it holds no project's state (only the sealing key and empty folders);
# else it holds the loops' logs and the backups of the user's workspaces, which are the user's to drop.
# tiergate's state folder is kept only when it holds what a user may want back: a loop's decision log or
# a backup store of a workspace. Anything else there (the sealing key, a report page, an empty project
# folder) goes with it, and so does the state home when tiergate's folder was all it held.
remove_state() {
    local state="$STATE_HOME/tiergate"
    [ -d "$state" ] || return 0
    local logs backups
    logs="$(find "$state" -name 'log.jsonl*' -type f | wc -l | tr -d ' ')"
    backups="$(find "$state" -name backups.git -type d -prune | wc -l | tr -d ' ')"
    if [ "$logs" -eq 0 ] && [ "$backups" -eq 0 ]; then
        rm -rf "$state"
        did "removed tiergate's state folder $state (no loop's log and no backup in it)"
        if [ -z "${XDG_STATE_HOME:-}" ] && rmdir "$STATE_HOME" 2>/dev/null; then
            did "removed the empty folder $STATE_HOME (tiergate's state was all it held)"
        fi
        return 0
    fi
    local what="the backups of $backups workspace(s)"
    if [ "$backups" -eq 0 ]; then
        what="$logs loop log file(s)"
    elif [ "$logs" -gt 0 ]; then
        what="$logs loop log file(s) and $what"
    fi
    say "kept tiergate's state in $state: it holds $what (remove it when you no longer need them)"
}

# What the record says install.sh made, the deepest first: a folder only if empty by now (rmdir), the
# settings file only if it holds nothing, Claude Code's plugins folder only if it lists nothing.
remove_made() {
    local entry kind path
    for entry in "$@"; do
        kind="${entry%% *}"
        path="${entry#* }"
        if [ "$kind" = "file" ] && [ "$path" = "$SETTINGS" ] && [ -f "$path" ] &&
            [ "$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1])) == {})' "$path" 2>/dev/null)" = "True" ]; then
            rm -f "$path"
            did "removed $path (empty; Claude Code made it for tiergate)"
        fi
    done
    if printf '%s\n' "$@" | grep -qxF -- "dir $CLAUDE_DIR/plugins" && plugins_folder_is_empty; then
        rm -rf "$CLAUDE_DIR/plugins"
        did "removed $CLAUDE_DIR/plugins (Claude Code made it for tiergate, and it lists no plugin now)"
    fi
    local dirs
    mapfile -t dirs < <(printf '%s\n' "$@" | sed -n 's/^dir //p' | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
    for path in "${dirs[@]}"; do
        if [ -d "$path" ] && rmdir "$path" 2>/dev/null; then
            did "removed the empty folder $path (it was not there before install.sh)"
        fi
    done
}

# Claude Code's plugins folder holds only its empty lists (no plugin, no marketplace) and empty folders.
plugins_folder_is_empty() {
    "$PYTHON" - "$CLAUDE_DIR/plugins" <<'PY'
import json, sys
from pathlib import Path

root = Path(sys.argv[1])
empty = {"installed_plugins.json": lambda d: not d.get("plugins"), "known_marketplaces.json": lambda d: not d}
for path in root.rglob("*"):
    if path.is_dir():
        continue
    test = empty.get(str(path.relative_to(root)))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        sys.exit(1)
    if test is None or not isinstance(data, dict) or not test(data):
        sys.exit(1)
PY
}

remove_dir() {
    if [ -d "$1" ]; then
        rm -rf "$1"
        did "removed $2 ($1)"
    fi
}

main "$@"
