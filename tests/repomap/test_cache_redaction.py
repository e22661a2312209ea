"""A credential pasted into a source file never reaches the map's cache on disk."""

from __future__ import annotations

import os
from pathlib import Path

from zizou.repomap import cache
from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import MapRequest
from zizou.repomap.tokens import EstimateCounter

KEY = "sk-proj-Abcdefghij0123456789klmnopqrstuv"


def test_the_rendered_map_is_redacted_on_disk(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "client.py").write_text(
        f'def connect(url, key="{KEY}"):\n    return url, key\n\n\n'
        "def main():\n    return connect('http://x')\n"
    )
    past = os.stat(project).st_mtime - 10
    os.utime(project / "client.py", (past, past))
    mapper = RepoMap(project, workers=1, counter=EstimateCounter())
    result = mapper.render(MapRequest(max_tokens=1024, message="connect"))
    assert KEY in result.text  # the map shows the definition line, key and all
    cache_dir = project / ".zizou" / "cache"
    stored = cache.load_renders(cache_dir, root=project)
    assert stored, "the map was not remembered on disk"
    assert all(KEY not in render[0] for render in stored.values())
    assert all(KEY not in p.read_bytes().decode("latin-1") for p in cache_dir.iterdir())
