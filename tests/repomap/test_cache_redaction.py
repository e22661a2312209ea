"""A credential pasted into a source file never reaches the map's cache on disk."""

from __future__ import annotations

import os
from pathlib import Path

from zizou.repomap import cache
from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import MapRequest

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
    mapper = RepoMap(project, workers=1)  # the real tokenizer: its counts are kept on disk
    result = mapper.render(MapRequest(max_tokens=1024, message="connect"))
    mapper.wait_for_cache()
    assert KEY in result.text  # the map shows the definition line, key and all
    cache_dir = project / ".zizou" / "cache"
    stored = cache.load_renders(cache_dir, root=project)
    assert stored, "the map was not remembered on disk"
    assert all(KEY not in render[0] for render in stored.values())
    assert {p.name for p in cache_dir.iterdir()} >= {
        cache.TAGS_FILE,
        cache.TOKENS_FILE,
        cache.RENDERS_FILE,
    }
    for path in cache_dir.iterdir():  # the token counts, the tags and the renders alike
        assert KEY.encode() not in path.read_bytes(), path.name
