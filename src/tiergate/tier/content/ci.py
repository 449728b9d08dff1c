"""CI workflows (GitHub Actions, and Gitea's and Forgejo's, the same format): which changes to them are
security, read from their changed lines: security unless every changed line is a routine form (an
action's version bump, a name, a version or matrix list, a trigger filter, a comment) and no routine line
holds a shell character. The routine forms and why: docs/risk-paths.md, "Workflows".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from tiergate.redact import redact
from tiergate.tier.content.patch import FileLines, Side
from tiergate.tier.content.rule import ContentHit, Ecosystem
from tiergate.tier.content.scan import excerpt

# A workflow is security by its path, yet most changes to one are a bot bumping an action: so these rules
# decide from its changed lines. A workflow whose lines were not read keeps its path floor (`judged_paths`).


# The directories whose YAML files are workflows (each also a `dirpath` security rule in riskrules).
WORKFLOW_DIRS = (".github/workflows", ".gitea/workflows", ".forgejo/workflows")
CONSTRUCT = "CI workflow"

# What a shell line needs to do anything beyond running one fixed word: never in a routine line.
_SHELL = re.compile(r"[$`\\;|&<>]")
_USES = re.compile(
    r"""^-?[ \t]*uses:[ \t]*(["']?)(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@(?P<ref>[A-Za-z0-9_.+-]+)\1"""
    r"""[ \t]*(?:#.*)?$"""
)
# A version tag (v4, v4.1.2, 1.2.3-rc.1) or a commit id.
_PINNED_REF = re.compile(r"v?[0-9]+(?:\.[0-9A-Za-z]+)*(?:[-+][0-9A-Za-z.]+)?|[0-9a-f]{40}")
# A scalar worth nothing to a shell: a version, an image label, a session name; one word, quoted or not
# (a matrix value is often spliced into a `run:` command, where a space would start another argument).
_VALUE = r"""(?:[A-Za-z0-9_.+/()*-]*|"[A-Za-z0-9_.+,/()*-]*"|'[A-Za-z0-9_.+,/()*-]*')"""
# A list item on its own line: a version (`3.13`, `v1.2`, `18.x`, `pypy-3.10`, `3.14t`) or a runner image,
# never any other word (`- evil-package` may be a matrix value that a `run:` installs).
_VERSIONISH = (
    r"""["']?(?:v?[0-9][A-Za-z0-9_.+*-]*|pypy[-.]?[0-9][A-Za-z0-9_.-]*|"""
    r"""(?:ubuntu|windows|macos)-[A-Za-z0-9_.-]+|stable|beta|nightly|latest|lts/\*)["']?"""
)
_FLOW_LIST = rf"""\[[ \t]*(?:{_VALUE}[ \t]*,[ \t]*)*{_VALUE}?[ \t]*,?[ \t]*\]"""
# Keys whose value is a version, a runner image, a matrix session or a list of them.
_VERSION_KEYS = (
    r"[A-Za-z0-9_-]*-version|version|versions|toolchain|rust|python|node|go|java|ruby|os|runs-on|"
    r"platform|target|arch|architecture|experimental|tox|tox-env|toxenv|nox-session|build|"
    r"allow-prereleases|check-latest|cache-dependency-path|merge-multiple|include-hidden-files|"
    # which pushes and pull requests start a run: not what it does
    r"branches|branches-ignore|tags|tags-ignore|paths|paths-ignore"
)
# A matrix entry written as one map: those keys, and a name that may hold spaces.
_PAIR = rf"""(?:(?:{_VERSION_KEYS}):[ \t]*{_VALUE}|name:[ \t]*(?:"[A-Za-z0-9_. -]*"|'[A-Za-z0-9_. -]*'))"""
_FLOW_MAP = rf"""\{{[ \t]*(?:{_PAIR}[ \t]*,[ \t]*)*{_PAIR}[ \t]*,?[ \t]*\}}"""
_ITEM = rf"""(?:{_VALUE}|{_FLOW_LIST}|{_FLOW_MAP})"""
_COMMENT = r"""(?:[ \t]+#.*)?"""
# When a scheduled run starts.
_CRON = r"""-?[ \t]*cron:[ \t]*["'][0-9*/, -]+["']"""
_HARMLESS_KEYS = r"fetch-depth|timeout-minutes|fail-fast|max-parallel|cache"
_ROUTINE_BOTH = re.compile(
    "|".join(
        (
            r"^$",
            r"^#.*$",
            r"^-?[ \t]*name:[ \t]*.*$",
            rf"^-?[ \t]*(?:{_VERSION_KEYS}):[ \t]*{_ITEM}{_COMMENT}$",
            rf"^-[ \t]*(?:{_VERSIONISH}|{_FLOW_MAP}){_COMMENT}$",
            rf"^{_CRON}{_COMMENT}$",
            rf"^-?[ \t]*(?:{_HARMLESS_KEYS}):[ \t]*{_VALUE}{_COMMENT}$",
            rf"^-?[ \t]*(?:with|steps|strategy|matrix|include|exclude|{_VERSION_KEYS}):[ \t]*{_COMMENT}$",
        )
    )
)
_ROUTINE_ADDED = re.compile(r"""^-?[ \t]*persist-credentials:[ \t]*["']?false["']?""" + _COMMENT + "$")
# What a line that is not routine does, for its reason; the first that fits names it.
_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsecrets\.|\bsecrets\b[ \t]*:|GITHUB_TOKEN|\bgithub\.token\b"), "a secret or token used"),
    (re.compile(r"\bpermissions\b|\bid-token\b|\bcontents:[ \t]*write"), "permissions changed"),
    (re.compile(r"\bpull_request_target\b|\bworkflow_run\b"), "a privileged trigger"),
    (
        re.compile(r"github\.event\.|github\.head_ref|\binputs\.|github\.event_path"),
        "an expression reading the event payload or inputs",
    ),
    (re.compile(r"^-?[ \t]*run:"), "a run command changed"),
    (re.compile(r"^-?[ \t]*uses:"), "an action added, removed or moved off a version"),
    (re.compile(r"^-?[ \t]*on:|^-?[ \t]*(?:push|pull_request|schedule|workflow_dispatch):"), "its triggers"),
    (re.compile(r"^-?[ \t]*env:|^[ \t]*[A-Z][A-Z0-9_]*:"), "environment changed"),
    (re.compile(r"^-?[ \t]*persist-credentials:"), "the job's token kept for later steps"),
    (re.compile(r"^-?[ \t]*with:|^-?[ \t]*[A-Za-z0-9_-]+:"), "an input or setting not known to be routine"),
)
_OTHER = "a workflow line not known to be routine (inside a run: block, any shell)"
# Every kind a file shows is named once; a long new workflow is a few reasons, not hundreds.
MAX_HITS_PER_FILE = 5


def judge_workflow(changed: FileLines) -> Iterable[ContentHit]:
    """Security hits for the changed lines of one workflow that are not routine (see the module)."""
    added, removed = _actions(changed.added), _actions(changed.removed)
    sides: tuple[tuple[Side, list[str], list[int], set[str]], ...] = (
        ("added", changed.added, changed.added_numbers, removed),
        ("removed", changed.removed, changed.removed_numbers, added),
    )
    seen: set[str] = set()
    for side, lines, numbers, other in sides:
        for text, number in zip(lines, numbers, strict=False):
            kind = _not_routine(text.strip(), side, other)
            if kind is None or kind in seen:
                continue
            seen.add(kind)
            shown = redact(excerpt(text, 0, 0))
            yield ContentHit(changed.path, number, side, f"{CONSTRUCT}: {kind}", "security", shown)
            if len(seen) >= MAX_HITS_PER_FILE:
                return


def _actions(lines: list[str]) -> set[str]:
    found = set()
    for line in lines:
        match = _USES.match(line.strip())
        if match:
            found.add(match["action"].lower())
    return found


def _not_routine(line: str, side: Side, other_side: set[str]) -> str | None:
    """None for a routine line, else what the line does."""
    if line.startswith("#") or not line:
        return None
    if _SHELL.search(line) is None:
        uses = _USES.match(line)
        if uses is not None:
            pinned = side == "removed" or _PINNED_REF.fullmatch(uses["ref"]) is not None
            if pinned and uses["action"].lower() in other_side:
                return None
        elif _ROUTINE_BOTH.match(line) or (side == "added" and _ROUTINE_ADDED.match(line)):
            return None
    return next((kind for pattern, kind in _KINDS if pattern.search(line)), _OTHER)


CI = Ecosystem(
    "ci",
    rules=(),
    suffixes=(".yml", ".yaml"),
    within=WORKFLOW_DIRS,
    judge=judge_workflow,
)
