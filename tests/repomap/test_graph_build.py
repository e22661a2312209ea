"""The graph is the same however its files are folded in: in any order (as a pool's batches come
back), or folded out and in again after an edit."""

from __future__ import annotations

import random
from pathlib import Path

from tests.repomap.conftest import write_project
from zizou.repomap.files import list_project_files
from zizou.repomap.graph_build import GraphBuilder, build_graph
from zizou.repomap.parse import ParseJob, read_entries
from zizou.repomap.tags import FileTags


def _tags(tmp_path: Path) -> dict[str, FileTags]:
    project = write_project(tmp_path / "project", extra_modules=30)
    jobs = [ParseJob(f, None) for f in list_project_files(project).sources]
    entries = read_entries(project, jobs, workers=1)
    found = {path: entry.file_tags() for path, entry in entries.items()}
    return {path: tags for path, tags in found.items() if tags is not None}


def test_any_order_of_folding_gives_the_same_graph(tmp_path: Path) -> None:
    tags = _tags(tmp_path)
    expected = build_graph(dict(sorted(tags.items())))
    assert expected.names and expected.edge_file
    for seed in range(3):
        items = list(tags.items())
        random.Random(seed).shuffle(items)
        builder = GraphBuilder()
        for path, file_tags in items:
            builder.add(path, file_tags)
        assert builder.build() == expected


def test_folding_a_file_out_and_in_again_gives_the_same_graph(tmp_path: Path) -> None:
    tags = _tags(tmp_path)
    builder = GraphBuilder()
    for path, file_tags in tags.items():
        builder.add(path, file_tags)
    expected = builder.build()
    gone = ["app/models.py", "polyglot/Repository.java", "gen_pkg/mod_004.py"]
    for path in gone:
        builder.discard(path)
    without = builder.build()
    assert without == build_graph({p: t for p, t in tags.items() if p not in gone})
    assert without != expected
    for path in gone:
        builder.add(path, tags[path])
    builder.add("app/util.py", tags["app/util.py"])  # folded in twice: replaced, not doubled
    assert builder.build() == expected
