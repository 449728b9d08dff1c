"""CI workflows read by their changed lines (`tiergate.tier.content.ci`): what a workflow does with the
repository's secrets is security, an action's version bump is not. Synthetic diffs written here; then
through `assess_change` on real git repositories, where a workflow the rules cannot read keeps its
path floor."""

from __future__ import annotations

from pathlib import Path

import pytest
from testing.filelines import file_lines
from testing.gitrepo import repo_fixture, write
from testing.unifieddiff import patch

from tiergate.config.settings import validate_table
from tiergate.tier import content
from tiergate.tier.assess import assess_change
from tiergate.tier.content import ContentHit, judged_paths, scan_patch
from tiergate.tier.content.ci import CI
from tiergate.tier.riskpaths import DEFAULT as PATHS

WORKFLOW = ".github/workflows/ci.yml"


def security(removed: list[str], added: list[str], path: str = WORKFLOW) -> list[ContentHit]:
    return [h for h in scan_patch(patch(path, removed, added), content.DEFAULT) if h.category == "security"]


SHA_OLD = "11bd71901bbe5b1630ceea73d27597364c9af683"
SHA_NEW = "08c6903cd8c0fde910a37f88322edcfb5dd907a8"

# (removed lines, added lines, what the reason names): each does something with the job's trust
RISKY: list[tuple[list[str], list[str], str]] = [
    ([], ["      - run: curl -sSf https://example.com/install.sh | sh"], "a run command changed"),
    (["      - run: pytest"], ["      - run: pytest -x"], "a run command changed"),
    (["      - run: ./scripts/verify-signatures.sh"], [], "a run command changed"),
    ([], ["          curl https://example.com/x | sh"], "a workflow line not known to be routine"),
    ([], ["          make deploy"], "a workflow line not known to be routine"),
    ([], ["permissions:", "  contents: write"], "permissions changed"),
    (["  contents: read"], ["  contents: write"], "permissions changed"),
    ([], ["          password: ${{ secrets.PYPI_TOKEN }}"], "a secret or token used"),
    ([], ["      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}"], "a secret or token used"),
    ([], ["  pull_request_target:"], "a privileged trigger"),
    ([], ["  workflow_run:"], "a privileged trigger"),
    ([], ["on: [push, pull_request]"], "its triggers"),
    ([], ['      - run: echo "${{ github.event.issue.title }}"'], "the event payload"),
    ([], ["      TITLE: ${{ github.event.pull_request.title }}"], "the event payload"),
    ([], ["    env:"], "environment changed"),
    (["      - uses: actions/checkout@v4"], ["      - uses: evil-org/checkout@v4"], "an action added"),
    ([], ["      - uses: someone/new-action@v1"], "an action added"),
    (["      - uses: github/codeql-action/analyze@v3"], [], "an action added, removed"),
    (["      - uses: actions/checkout@v4"], ["      - uses: actions/checkout@main"], "moved off a version"),
    ([], ["      - uses: ./.github/actions/setup"], "an action added"),
    (["        persist-credentials: false"], [], "the job's token kept"),
    # a line of a run block that looks like a name or a list item, but runs something
    ([], ["          name: $(curl https://example.com/x)"], "not known to be routine"),
    ([], ["          - 3.12; curl https://example.com/x"], "not known to be routine"),
    ([], ["          script: github.rest.issues.createComment({})"], "an input or setting"),
    # a matrix value that is not a version may be spliced into a run: command
    ([], ["          - evil-package"], "not known to be routine"),
    ([], ["          - {python: '3.12', pkg: evil-package}"], "not known to be routine"),
    (
        ["        python-version: '3.12'"],
        ["        python-version: '3.12 --pre evil'"],
        "an input or setting",
    ),
    ([], ["    if: github.repository_owner == 'someone'"], "an input or setting"),
    ([], ["  schedule:"], "its triggers"),
]


@pytest.mark.parametrize(("removed", "added", "named"), RISKY)
def test_a_workflow_change_that_touches_trust_is_security(
    removed: list[str], added: list[str], named: str
) -> None:
    hits = security(removed, added)
    assert hits, (removed, added)
    assert all(h.construct.startswith("CI workflow: ") for h in hits)
    assert any(named in h.construct for h in hits), [h.construct for h in hits]


# (removed lines, added lines): routine maintenance, and look-alikes of the risky lines above
ROUTINE: list[tuple[list[str], list[str]]] = [
    (["      - uses: actions/checkout@v3"], ["      - uses: actions/checkout@v4"]),
    (["        uses: actions/setup-python@v5"], ["        uses: actions/setup-python@v6.0.1"]),
    (
        [f"      - uses: actions/checkout@{SHA_OLD} # v4.2.2"],
        [f"      - uses: actions/checkout@{SHA_NEW} # v5"],
    ),
    (
        ['      - uses: "pypa/gh-action-pypi-publish@v1.12.3"'],
        ['      - uses: "pypa/gh-action-pypi-publish@v1.12.4"'],
    ),
    (
        ["      uses: github/codeql-action/init@v2", "      uses: github/codeql-action/analyze@v2"],
        ["      uses: github/codeql-action/init@v3", "      uses: github/codeql-action/analyze@v3"],
    ),
    (["      - name: Run tests"], ["      - name: Run the tests (unit)"]),
    (["name: CI"], ["name: Tests"]),
    ([], ["# pinned by the security team's policy", ""]),
    (
        ['        python-version: ["3.9", "3.10", "3.11"]'],
        ['        python-version: ["3.10", "3.11", "3.12"]'],
    ),
    (["        node-version: [18, 20]"], ["        node-version: [20, 22]"]),
    (["          - '3.12'"], ["          - '3.13'", "          - pypy-3.10"]),
    (["    runs-on: ubuntu-22.04"], ["    runs-on: ubuntu-24.04"]),
    (
        ["        os: [ubuntu-latest, windows-latest]"],
        ["        os: [ubuntu-latest, windows-latest, macos-14]"],
    ),
    ([], ["          - {name: 'Minimum Versions', python: '3.12', os: ubuntu-latest, tox: py312-min}"]),
    ([], ["        with:", "          persist-credentials: false", "          fetch-depth: 0"]),
    (["        go: [1.15, 1.16, 1.17]"], ["        go: [1.16, 1.17, 1.18]"]),
    (["    timeout-minutes: 10"], ["    timeout-minutes: 30"]),
    (["    branches: [main]"], ["    branches: [main, stable]", "    paths-ignore: ['docs/**']"]),
    (["    - cron: '0 0 * * *'"], ["    - cron: '30 4 * * 1'"]),
    (["          nox-session: test-3.8"], ["          nox-session: test-3.13", "          - 3.14t"]),
]


@pytest.mark.parametrize(("removed", "added"), ROUTINE)
def test_an_action_bump_a_name_or_a_matrix_version_is_not_security(
    removed: list[str], added: list[str]
) -> None:
    assert security(removed, added) == []


def test_only_workflow_yaml_is_judged_and_other_ci_definitions_keep_their_path_rule() -> None:
    assert CI.holds(".github/workflows/ci.yml") and CI.holds("sub/.gitea/workflows/test.yaml")
    assert not CI.holds(".github/workflows/helper.sh")
    assert not CI.holds(".github/dependabot.yml") and not CI.holds(".github/actions/setup/action.yml")
    assert not CI.holds("ci/workflows/x.yml")
    # Outside the workflow directories, a `uses:` bump is not read by this judge at all.
    assert security(["- uses: a/b@v1"], ["- uses: a/b@v2"], path="deploy/app.yml") == []
    others = [".github/actions/setup/action.yml", ".gitlab-ci.yml", ".github/workflows/helper.sh"]
    read = [file_lines(p, added_numbers=[1], added=["- uses: a/b@v2"]) for p in [*others, WORKFLOW]]
    judged = judged_paths(read, content.DEFAULT)
    assert judged == {WORKFLOW}
    assert [m.path for m in PATHS.scan(others, judged).security] == others


def test_a_judged_workflow_keeps_the_security_of_its_name_and_of_the_users_globs() -> None:
    # The seed's **/secrets?.{yml,yaml} names the file itself, whichever directory holds it.
    assert PATHS.scan([".github/workflows/secrets.yml"], judged={".github/workflows/secrets.yml"}).security
    assert PATHS.scan([WORKFLOW], judged={WORKFLOW}).security == ()
    assert PATHS.scan([WORKFLOW]).security  # not judged: the path rule
    mine = type(PATHS)(extra_security=[".github/**"])
    assert [m.pattern for m in mine.scan([WORKFLOW], judged={WORKFLOW}).security] == [".github/**"]


CI_YML = "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
STEPS = "      - uses: actions/checkout@v3\n      - run: pytest\n"


repo = repo_fixture({WORKFLOW: CI_YML + STEPS, "app.py": "x = 1\n"})


def test_an_action_bump_alone_is_not_thorough_and_a_new_command_is(repo: Path) -> None:
    root = repo
    write(root, {WORKFLOW: CI_YML + STEPS.replace("@v3", "@v4")})

    bump = assess_change(root)

    assert not bump.decision.facts.has_security_implications
    assert bump.decision.tier != "THOROUGH" and bump.scan.security == ()
    write(root, {WORKFLOW: CI_YML + STEPS.replace("@v3", "@v4") + "      - run: ./deploy.sh\n"})
    command = assess_change(root)
    assert command.decision.tier == "THOROUGH"
    assert any(
        f"{WORKFLOW}:9 (added line) CI workflow: a run command changed" in r for r in command.decision.reasons
    )


def test_a_new_untracked_workflow_is_read_whole(repo: Path) -> None:
    root = repo
    write(root, {".github/workflows/release.yml": CI_YML + "      - run: twine upload dist/*\n"})

    assert assess_change(root).decision.facts.has_security_implications


def test_a_workflow_the_rules_cannot_read_keeps_its_path_floor(repo: Path) -> None:
    root = repo
    bumped = CI_YML + STEPS.replace("@v3", "@v4")
    write(root, {WORKFLOW: bumped})
    off = validate_table(".tiergate.toml", {"risk": {"content": False}})
    assert assess_change(root, config=off).decision.tier == "THOROUGH"  # content rules off

    # Marked binary in a .gitattributes: read all the same (tiergate's git takes no attribute from the
    # workspace), so the rules judge it and name what it runs.
    write(root, {".gitattributes": "*.yml binary\n", WORKFLOW: bumped + "      - run: ./deploy.sh\n"})
    marked = assess_change(root)
    assert marked.decision.tier == "THOROUGH"
    assert f'{WORKFLOW}:9 (added line) CI workflow: a run command changed: "- run: ./deploy.sh"' in " ".join(
        marked.decision.reasons
    )
