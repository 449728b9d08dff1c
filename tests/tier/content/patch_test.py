"""Generated files the content rules do not read: source maps, cut out of the patch before it is
decoded, and never read from the disk when untracked. A secret a build inlines still shows in the
bundle beside the map."""

from __future__ import annotations

from pathlib import Path

from testing.gitrepo import init_repo, write
from testing.unifieddiff import patch

from tiergate.tier import content
from tiergate.tier.assess import assess_change
from tiergate.tier.content import parse_patch, scan_patch
from tiergate.tier.content.patch import generated

KEY = "AKIA" + "ABCDEFGHIJKLMNOP"  # an AWS key id's shape, not a key
SECRET_LINE = f'  "sourcesContent": ["const key = \\"{KEY}\\""],'


def test_a_source_map_is_not_read_and_the_files_around_it_are() -> None:
    both = (
        patch("dist/axios.js", [], [f'const key = "{KEY}";'])
        + patch("dist/axios.js.map", [], [SECRET_LINE])
        + patch('odd "name".css.map', [], [SECRET_LINE])
        + patch("lib/mapper.js", [], ["subprocess.run(x)  // .map"])
    )

    files = parse_patch(both)

    assert [f.path for f in files] == ["dist/axios.js", "lib/mapper.js"]
    hits = scan_patch(both, content.DEFAULT)
    assert [(h.path, h.construct) for h in hits] == [("dist/axios.js", "cloud or service token")]


def test_only_the_map_suffix_is_generated() -> None:
    assert generated("dist/axios.min.js.map") and generated("STYLE.CSS.MAP")
    assert not generated("src/map.js") and not generated("src/heatmap.py") and not generated("maps/x.json")
    # A line ending in ".map" inside a hunk is content, not a header: the file is read.
    assert [f.path for f in parse_patch(patch("a.py", [], ["x = 1", "y = z.map"]))] == ["a.py"]


def test_an_untracked_source_map_is_not_read_from_the_disk(tmp_path: Path) -> None:
    root = init_repo(tmp_path / "repo", {"README.md": "hi\n"})
    write(root, {"dist/app.js.map": SECRET_LINE + "\n"})
    assert assess_change(root).content == ()
    write(root, {"dist/app.js": f'const key = "{KEY}";\n'})
    assert [h.path for h in assess_change(root).content] == ["dist/app.js"]
