"""The map at the next agent step shows what changed since the last one, whoever changed it:
zizou's own write, a command, or the user's editor; and an unchanged project is not listed again.

Every file and directory is aged first, so the kept listing is trusted (a change within
RACY_NS of a check is always listed again) and the tests exercise the cheap check itself.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from zizou import confined
from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import MapRequest, MapResult
from zizou.repomap.tokens import EstimateCounter

AGE_NS = 60 * 1_000_000_000

pytestmark = pytest.mark.usefixtures("git_installed")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _age(root: Path) -> None:
    old = time.time_ns() - AGE_NS
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            os.utime(os.path.join(directory, name), ns=(old, old), follow_symlinks=False)
    os.utime(root, ns=(old, old))


def _settled(project: Path) -> RepoMap:
    """A map of the project (a git repository, aged), past its first listings."""
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _age(project)
    mapper = RepoMap(project, persist=False, workers=1, counter=EstimateCounter())
    assert mapper.render(MapRequest(max_tokens=2000)).stats.listed
    return mapper


def _step(mapper: RepoMap, *names: str) -> MapResult:
    return mapper.render(MapRequest(max_tokens=2000, identifiers=names))


def test_an_unchanged_project_is_not_listed_again(project: Path) -> None:
    mapper = _settled(project)
    first = _step(mapper, "slugify")
    again = _step(mapper, "slugify")
    assert not first.stats.listed and not again.stats.listed
    assert again.text == first.text and again.stats.memo


def test_a_file_edited_in_place_outside_zizou_shows_without_a_new_listing(project: Path) -> None:
    mapper = _settled(project)
    assert "No definition found for: from_the_editor" in _step(mapper, "from_the_editor").text
    with open(project / "app" / "util.py", "a", encoding="utf-8") as editor:
        editor.write("\n\ndef from_the_editor(text: str) -> str:\n    return text\n")
    result = _step(mapper, "from_the_editor")
    assert "def from_the_editor(text: str) -> str:" in result.text, result.text
    assert not result.stats.listed  # the source's stat said so; no directory changed


def test_a_file_zizou_writes_shows_at_the_next_step(project: Path) -> None:
    mapper = _settled(project)
    _step(mapper, "written_by_the_agent")
    code = b"def written_by_the_agent(count: int) -> int:\n    return count\n"
    confined.atomic_write(project, "app/agent_made.py", code)
    result = _step(mapper, "written_by_the_agent")
    assert "app/agent_made.py:" in result.text
    assert "def written_by_the_agent(count: int) -> int:" in result.text
    assert result.stats.listed


def test_files_a_command_creates_and_deletes_show_at_the_next_step(project: Path) -> None:
    mapper = _settled(project)
    assert "app/admin.py" in _step(mapper, "made_by_command").text
    script = "printf 'def made_by_command():\\n    pass\\n' > app/cmd_made.py && rm app/admin.py"
    subprocess.run(["sh", "-c", script], cwd=project, check=True)
    result = _step(mapper, "made_by_command")
    assert "def made_by_command():" in result.text
    assert "app/admin.py" not in result.text and "def ban(" not in result.text


def test_a_file_created_in_an_empty_directory_shows(project: Path) -> None:
    (project / "later" / "deeper").mkdir(parents=True)
    mapper = _settled(project)
    (project / "later" / "deeper" / "late.py").write_text("def arrived_late():\n    pass\n")
    assert "def arrived_late():" in _step(mapper, "arrived_late").text


def test_a_gitignore_edited_in_place_hides_an_untracked_file(project: Path) -> None:
    (project / "scratch.py").write_text("def scratch_work():\n    pass\n")
    (project / ".gitignore").write_text("*.log\n")
    mapper = _settled(project)
    _git(project, "rm", "-q", "--cached", "scratch.py")
    _age(project)
    assert "def scratch_work():" in _step(mapper, "scratch_work").text
    with open(project / ".gitignore", "a", encoding="utf-8") as editor:
        editor.write("scratch.py\n")
    assert "scratch.py" not in _step(mapper, "scratch_work").text


def test_a_file_git_starts_tracking_despite_the_ignore_rules_shows(project: Path) -> None:
    (project / "forced.py").write_text("def tracked_by_force():\n    pass\n")
    (project / ".gitignore").write_text("forced.py\n")
    mapper = _settled(project)
    assert "def tracked_by_force():" not in _step(mapper, "tracked_by_force").text
    _git(project, "add", "-f", "forced.py")  # only git's index changes
    assert "def tracked_by_force():" in _step(mapper, "tracked_by_force").text


def test_a_signature_changed_in_place_shows_at_the_next_step(project: Path) -> None:
    mapper = _settled(project)
    assert "def slugify(text: str) -> str:" in _step(mapper, "slugify").text
    util = project / "app" / "util.py"
    util.write_text(util.read_text().replace("(text: str)", "(title: str)"))
    text = _step(mapper, "slugify").text
    assert "def slugify(title: str) -> str:" in text and "(text: str)" not in text


def test_an_edit_behind_a_linked_source_shows_at_the_next_step(project: Path) -> None:
    (project / "real").mkdir()
    (project / "real" / "impl.py").write_text("def behind_the_link():\n    pass\n")
    (project / "linked.py").symlink_to("real/impl.py")
    mapper = _settled(project)
    assert "linked.py:" in _step(mapper, "behind_the_link").text
    with open(project / "real" / "impl.py", "a", encoding="utf-8") as editor:
        editor.write("\n\ndef also_behind_the_link():\n    pass\n")
    result = _step(mapper, "also_behind_the_link")
    assert "def also_behind_the_link():" in result.text
    assert not result.stats.listed
