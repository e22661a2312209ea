"""The repo_map tool: focused maps for the model, errors it can read, the tool contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from zizou.errors import PathError
from zizou.repomap import repo_map_for
from zizou.tools import default_registry
from zizou.tools.base import ToolContext
from zizou.tools.repo_map import TOOL, RepoMapArgs


async def _run(project: Path, **args: object) -> tuple[bool, str]:
    result = await TOOL.run(
        RepoMapArgs(**args), ToolContext(root=project, code_map=repo_map_for(project))
    )  # type: ignore[arg-type]
    return result.ok, result.output


async def test_paths_put_their_own_definitions_first(project: Path) -> None:
    ok, text = await _run(project, paths=["app/report.py"], max_tokens=400)
    assert ok
    assert text.splitlines()[1] == "app/report.py:"
    assert "def monthly_report" in text


async def test_identifiers_find_their_definitions(project: Path) -> None:
    ok, text = await _run(project, identifiers=["save_order", "Evict"], max_tokens=400)
    assert ok
    first_two_files = [
        line for line in text.splitlines() if line.endswith(":") and "│" not in line
    ][:2]
    assert sorted(first_two_files) == ["app/db.py:", "polyglot/lib.rs:"], text
    assert "def save_order" in text and "pub trait Evict" in text


async def test_names_defined_nowhere_are_reported(project: Path) -> None:
    ok, text = await _run(project, identifiers=["no_such_function", "slugify"], max_tokens=300)
    assert ok
    assert text.startswith("No definition found for: no_such_function\n")
    assert "def slugify" in text


async def test_a_missing_or_escaping_path_is_an_error_the_model_reads(project: Path) -> None:
    ok, text = await _run(project, paths=["no/such.py"])
    assert not ok and "does not exist" in text
    ok, text = await _run(project, paths=["../outside.py"])
    assert not ok


async def test_a_project_without_source_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi\n")
    ok, text = await _run(tmp_path)
    assert ok and "notes.txt" in text


def test_arguments_are_bounded() -> None:
    with pytest.raises(ValidationError):
        RepoMapArgs(max_tokens=10)
    with pytest.raises(ValidationError):
        RepoMapArgs(max_tokens=100_000)
    with pytest.raises(ValidationError):
        RepoMapArgs(identifiers=["not an identifier"])
    with pytest.raises(ValidationError):
        RepoMapArgs(paths=[f"f{i}.py" for i in range(50)])
    assert RepoMapArgs().max_tokens == 2048


def test_it_is_a_registered_read_tool(project: Path) -> None:
    assert isinstance(default_registry().get("repo_map"), type(TOOL))
    ctx = ToolContext(root=project)
    access = TOOL.access(RepoMapArgs(paths=["app"]), ctx)
    assert access.kind == "read" and access.paths == ("app",)
    assert TOOL.access(RepoMapArgs(), ctx).paths == (".",)
    with pytest.raises(PathError):
        TOOL.access(RepoMapArgs(paths=["../x"]), ctx)
    schema = TOOL.schema()["function"]
    assert set(schema["parameters"]["properties"]) == {"paths", "identifiers", "max_tokens"}
    assert schema["description"].startswith("Map the project's code")
