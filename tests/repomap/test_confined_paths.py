"""The map reads only the project's own files and writes its cache only into a real
`.zizou/cache`: symlinks a repository ships are not followed out of the root."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.repomap.files import list_project_files
from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import MapRequest
from zizou.repomap.signatures import read_signatures
from zizou.repomap.tokens import EstimateCounter

SECRET_SOURCE = "def outside_secret_function(token: str) -> None:\n    pass\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.py").write_text(SECRET_SOURCE)
    return directory


def render(project: Path) -> str:
    mapper = RepoMap(project, workers=1, counter=EstimateCounter())
    text = mapper.render(MapRequest(max_tokens=4000)).text
    mapper.wait_for_cache()  # whatever it would write is written
    return text


def test_a_source_linked_out_of_the_root_is_not_mapped(project: Path, outside: Path) -> None:
    (project / "leak.py").symlink_to(outside / "secret.py")
    (project / "alias.py").symlink_to("app/models.py")
    sources = {f.path for f in list_project_files(project).sources}
    assert "leak.py" not in sources and "alias.py" in sources
    text = render(project)
    assert "outside_secret_function" not in text and "class User" in text


def test_signatures_are_not_read_through_a_link_out(project: Path, outside: Path) -> None:
    (project / "leak.py").symlink_to(outside / "secret.py")
    assert read_signatures(project, "leak.py", [(1, "function")]) == {}
    assert read_signatures(project, "app/models.py", [(1, "class")]) == {1: "class User:"}


@pytest.mark.parametrize("link", [".zizou", ".zizou/cache"])
def test_a_symlinked_cache_dir_is_neither_written_nor_read(
    project: Path, outside: Path, link: str
) -> None:
    if link != ".zizou":
        (project / ".zizou").mkdir()
    (project / link).symlink_to(outside, target_is_directory=True)
    first = render(project)
    assert "class User" in first
    assert render(project) == first
    assert sorted(p.name for p in outside.iterdir()) == ["secret.py"]


def test_a_source_linked_to_a_secret_file_is_not_mapped(project: Path) -> None:
    (project / ".env").write_text('API_TOKEN = "hunter2-secret"\ndef leaked_helper():\n    pass\n')
    (project / "settings.py").symlink_to(".env")
    sources = {f.path for f in list_project_files(project).sources}
    assert "settings.py" not in sources
    text = render(project)
    assert "hunter2" not in text and "leaked_helper" not in text and "class User" in text
    assert read_signatures(project, "settings.py", [(1, "function")]) == {}
