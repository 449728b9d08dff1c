"""The agent a loop verifies has a shell in the repository tiergate measures. Through the real hook entry
point on real git: what it does to refs, index flags and ignore rules does not hide its change, and no
program the repository's config names (fsmonitor, filters, hooks) runs inside tiergate's git calls, in a
claim's Stop, a verifier's start and stop, or a rollback."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from testing.gitrepo import commit_all, git, init_repo, write
from testing.hooksession import HookSession, verifier_transcript
from testing.valueproject import CHECK, CLAIM

from tiergate.gate import sandbox
from tiergate.git import untracked

SESSION = "77777777-2222-3333-4444-555555555555"


class Loop(HookSession):
    def __init__(self, root: Path, config: str = "") -> None:
        project = init_repo(
            root / "project",
            {
                "value.txt": "good\n",
                "check.sh": CHECK,
                "src/app.py": "def serve():\n    return 'ok'\n",
                ".tiergate.toml": '[checks]\ntests = "sh check.sh"\n' + config,
                ".gitignore": ".tiergate/\n",
            },
        )
        super().__init__(root, project, SESSION)
        self.marker = root / "ran.log"

    def start(self) -> str:
        answer = self.hook("UserPromptSubmit", prompt="/tiergate:ralph make value.txt right")
        assert "loop started" in answer["systemMessage"]
        base = self.loop().base
        assert base is not None
        return base

    def stop(self, message: str) -> dict[str, Any]:
        return self.hook("Stop", last_assistant_message=message)

    def claimed_paths(self) -> tuple[str, ...]:
        answer = self.stop(CLAIM)
        assert "```tiergate-spawn" in answer["reason"], answer
        verification = self.loop().verification
        assert verification is not None
        return verification.paths

    def program(self, name: str) -> Path:
        """A program that leaves its name in the marker file whenever it runs (and passes stdin on)."""
        path = self.root / name
        path.write_text(f'#!/bin/sh\necho {name} >> "{self.marker}"\ncat\n')
        path.chmod(0o755)
        return path

    def ran(self) -> list[str]:
        return self.marker.read_text().split() if self.marker.exists() else []

    def verify(self, agent_id: str) -> dict[str, Any]:
        verification = self.loop().verification
        assert verification is not None
        packet = self.hook("SubagentStart", agent_id=agent_id, agent_type=verification.agent)
        self.context: str = packet["hookSpecificOutput"]["additionalContext"]
        criteria = [
            {"criterion": label, "status": "VERIFIED", "evidence": "$ sh check.sh -> ok"}
            for label in verification.evidence
        ]
        verdict = json.dumps({"verdict": "PASS", "criteria": criteria, "critique": ""})
        transcript = verifier_transcript(self.root / f"agent-{agent_id}.jsonl", "sh check.sh", "ok")
        return self.hook(
            "SubagentStop",
            agent_id=agent_id,
            agent_type=verification.agent,
            agent_transcript_path=str(transcript),
            last_assistant_message=f"I ran the check.\n\n```tiergate-verdict\n{verdict}\n```",
        )


# -- what is on disk, not what refs and the index say ------------------------------------------------


def test_a_replace_ref_over_the_base_does_not_hide_a_committed_broken_change(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    base = loop.start()
    write(loop.project, {"value.txt": "bad\n"})
    commit_all(loop.project, "the broken change")
    git(loop.project, "replace", base, "HEAD")  # the base now reads as the agent's commit

    answer = loop.stop(CLAIM)

    reason = answer["reason"]
    assert answer["decision"] == "block" and "tiergate-spawn" not in reason
    assert "AssertionError: value.txt says bad, expected good" in reason
    assert "pre-existing" not in reason
    [record] = [r for r in loop.decisions() if r["decision"] == "gate-refuted"]
    assert record["gate"]["refuted"] is True


def test_an_edit_marked_assume_unchanged_is_still_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"src/app.py": "def serve():\n    return eval(input())\n", "notes.md": "n\n"})
    git(loop.project, "update-index", "--assume-unchanged", "src/app.py")
    assert "src/app.py" in loop.claimed_paths()


def test_an_edit_marked_skip_worktree_is_still_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    git(loop.project, "update-index", "--skip-worktree", "src/app.py")
    write(loop.project, {"src/app.py": "def serve():\n    return eval(input())\n", "notes.md": "n\n"})
    assert "src/app.py" in loop.claimed_paths()


def test_a_new_file_hidden_by_info_exclude_is_still_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {"src/backdoor.py": "import os\n", "notes.md": "n\n"})
    with (loop.project / ".git/info/exclude").open("a") as exclude:
        exclude.write("backdoor.py\n")
    assert "src/backdoor.py" in loop.claimed_paths()


def test_a_new_file_hidden_by_an_excludes_file_the_agent_sets_is_still_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    ignore = tmp_path / "agent-ignore"
    ignore.write_text("*.py\n")
    git(loop.project, "config", "core.excludesFile", str(ignore))
    write(loop.project, {"src/backdoor.py": "import os\n", "notes.md": "n\n"})
    assert "src/backdoor.py" in loop.claimed_paths()


def test_a_new_file_the_agent_lists_in_gitignore_is_still_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    write(loop.project, {".gitignore": ".tiergate/\nsrc/backdoor.py\n", "src/backdoor.py": "import os\n"})
    write(loop.project, {"lib/.gitignore": "*\n", "lib/helper.py": "import os\n"})
    paths = loop.claimed_paths()
    assert {".gitignore", "src/backdoor.py", "lib/.gitignore", "lib/helper.py"} <= set(paths)


def test_the_ignore_rules_committed_at_the_base_still_hold_in_every_folder(tmp_path: Path) -> None:
    repo = init_repo(
        tmp_path / "r",
        {
            ".gitignore": "*.log\n",
            "pkg/.gitignore": "build/\n/local.txt\n!keep.log\n",
            "pkg/a.py": "x\n",
        },
    )
    write(
        repo,
        {
            "top.log": "x\n",
            "pkg/build/out.o": "x\n",
            "pkg/deep/build/out.o": "x\n",
            "pkg/local.txt": "x\n",
            "pkg/deep/local.txt": "x\n",
            "pkg/keep.log": "x\n",
            "other/build/out.o": "x\n",
        },
    )
    base = git(repo, "rev-parse", "HEAD").strip()
    assert sorted(untracked.untracked_files(repo, base)) == [
        "other/build/out.o",
        "pkg/deep/local.txt",
        "pkg/keep.log",
    ]


# -- no program from the repository's config runs -----------------------------------------------------


def test_an_fsmonitor_the_agent_configures_never_runs_in_a_claim_or_a_verifier(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    git(loop.project, "config", "core.fsmonitor", str(loop.program("fsmonitor")))
    write(loop.project, {"notes.md": "n\n"})

    loop.claimed_paths()
    assert loop.ran() == []
    passed = loop.verify("a1")

    assert "returned PASS" in passed["systemMessage"]
    assert loop.ran() == []
    # The verifier is told to look with git as tiergate runs it.
    assert "git --no-replace-objects -c core.fsmonitor=false -c core.hooksPath=/dev/null diff" in loop.context


def test_a_clean_filter_the_agent_configures_never_runs(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    filter_ = loop.program("filter")
    for key in ("clean", "smudge"):
        git(loop.project, "config", f"filter.x.{key}", str(filter_))
    git(loop.project, "config", "filter.x.required", "true")
    write(loop.project, {".gitattributes": "* filter=x\n", "src/app.py": "def serve():\n    pass\n"})

    paths = loop.claimed_paths()

    assert "src/app.py" in paths
    assert loop.ran() == []


def test_hooks_in_the_repository_never_run_in_a_claim_or_its_rollback(tmp_path: Path) -> None:
    loop = Loop(tmp_path, "\n[interventions]\nattempt_limit = 1\n")
    loop.start()
    hooks = loop.project / ".git/hooks"
    for name in ("reference-transaction", "post-index-change", "post-checkout", "post-commit"):
        (hooks / name).symlink_to(loop.program(name))
    write(loop.project, {"value.txt": "bad\n", "scratch.txt": "the loop's work\n"})

    answer = loop.stop(CLAIM)

    assert "saved as backup" in answer["reason"]  # a baseline worktree, a backup and a rollback ran
    assert (loop.project / "value.txt").read_text() == "good\n"
    assert loop.ran() == []


def test_a_filter_a_check_configures_mid_claim_never_runs_in_the_calls_after_it(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    filter_ = loop.program("filter")
    arm = f'git config filter.x.clean "{filter_}"; git config filter.x.smudge "{filter_}"\n'
    write(loop.project, {"arm.sh": arm, ".tiergate.toml": '[checks]\ntests = "sh arm.sh; sh check.sh"\n'})
    commit_all(loop.project, "the check arms a filter")
    loop.start()
    write(loop.project, {".gitattributes": "* filter=x\n", "value.txt": "bad\n"})

    answer = loop.stop(CLAIM)

    assert "AssertionError: value.txt says bad, expected good" in answer["reason"]
    armed = subprocess.run(
        ["git", "config", "filter.x.clean"], check=False, cwd=loop.project, capture_output=True, text=True
    )
    if sandbox.unavailable() is None:
        assert armed.returncode == 1  # its sandbox shows `.git` read-only: the check could not arm it
    else:
        assert armed.stdout.strip() == str(filter_)  # the check ran
    assert loop.ran() == []


def test_an_edit_hidden_by_an_index_flag_is_in_the_backup_a_rollback_saves(tmp_path: Path) -> None:
    loop = Loop(tmp_path, "\n[interventions]\nattempt_limit = 1\n")
    loop.start()
    edit = "def serve():\n    return eval(input())\n"
    write(loop.project, {"value.txt": "bad\n", "src/app.py": edit})
    git(loop.project, "update-index", "--assume-unchanged", "src/app.py")

    answer = loop.stop(CLAIM)

    assert "saved as backup" in answer["reason"]
    [backup] = json.loads(loop.run("backups", "--json").stdout)
    store = backup["store"]
    assert git(Path(store), f"--git-dir={store}", "show", f"{backup['commit']}:files/src/app.py") == edit


def test_a_core_worktree_pointing_at_a_clean_copy_is_refused_not_measured(tmp_path: Path) -> None:
    loop = Loop(tmp_path)
    loop.start()
    clean = tmp_path / "clean"  # the base's files, untouched
    shutil.copytree(loop.project, clean, ignore=shutil.ignore_patterns(".git", ".tiergate"))
    write(loop.project, {"src/app.py": "def serve():\n    return eval(input())\n"})
    git(loop.project, "config", "core.worktree", str(clean))

    answer = loop.stop(CLAIM)

    assert answer["decision"] == "block" and "tiergate-spawn" not in answer["reason"]
    assert "see core.worktree" in answer["reason"]
