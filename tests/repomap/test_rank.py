"""Ranking: central code first, a pinned file's neighbours first, names in the message first."""

from __future__ import annotations

import itertools
from pathlib import Path

from zizou.repomap.graph_build import build_graph
from zizou.repomap.mapper import RepoMap
from zizou.repomap.rank import Focus, file_ranks
from zizou.repomap.request import MapRequest
from zizou.repomap.score import Boosts, top_definitions
from zizou.repomap.tags import FileTags
from zizou.repomap.tokens import EstimateCounter


def _map(project: Path, **request: object) -> str:
    mapper = RepoMap(project, persist=False, workers=1, counter=EstimateCounter())
    return mapper.render(MapRequest(**request)).text  # type: ignore[arg-type]


def _files_in_order(text: str) -> list[str]:
    return [line[:-1] for line in text.splitlines()[1:] if line.endswith(":") and "│" not in line]


def test_the_most_used_file_leads_an_unfocused_map(project: Path) -> None:
    files = _files_in_order(_map(project, max_tokens=300))
    assert files[0] == "app/models.py"


def test_a_pinned_files_neighbours_come_first(project: Path) -> None:
    text = _map(project, max_tokens=300, focus=("app/views.py",))
    files = _files_in_order(text)
    assert set(files[:2]) == {"app/service.py", "app/util.py"}, text
    assert "app/views.py:" not in text  # pinned: the WORKSPACE layer shows it whole


def test_a_pinned_directory_focuses_on_what_it_uses(project: Path) -> None:
    text = _map(project, max_tokens=300, focus=("polyglot",))
    assert "polyglot/" not in text.split("\n", 2)[1]


def test_names_in_the_message_come_first(project: Path) -> None:
    text = _map(project, max_tokens=300, message="why does `chunk_list` split badly?")
    assert _files_in_order(text)[0] == "app/util.py", text
    assert "def chunk_list" in _groups(text)[0]


def _groups(text: str) -> list[str]:
    """Each file's block of the map: its header and its definition lines."""
    blocks: list[str] = []
    for line in text.splitlines()[1:]:
        if "│" in line and blocks:
            blocks[-1] += "\n" + line
        else:
            blocks.append(line)
    return blocks


def test_shown_focus_lists_the_focused_files_own_definitions_first(project: Path) -> None:
    text = _map(project, max_tokens=300, focus=("app/report.py",), show_focus=True)
    assert _files_in_order(text)[0] == "app/report.py"


def _tags(defs: list[str], refs: list[tuple[str, int, int]]) -> FileTags:
    return FileTags(
        "python", tuple((n, i + 1, "function") for i, n in enumerate(defs)), tuple(refs)
    )


def test_a_weak_plain_word_passes_on_little() -> None:
    tags = {
        "a.py": _tags(["helper_fn"], []),
        "b.py": _tags(["get"], []),
        "c.py": _tags([], [("get", 0, 5), ("helper_fn", 1, 0)]),
    }
    graph = build_graph(tags)
    ranks = file_ranks(graph, Focus({}, ()))
    best = top_definitions(graph, ranks, Boosts(), 2)
    assert [d.name for d in best] == ["helper_fn", "get"]


def test_common_names_and_own_names_are_no_edges() -> None:
    tags = {
        "a.py": _tags(["list", "local"], [("local", 3, 0)]),
        "b.py": _tags([], [("list", 4, 0)]),  # the builtin, not a.py's method
    }
    graph = build_graph(tags)
    assert graph.names == ()


def test_ranks_sum_to_one_and_follow_uses() -> None:
    tags = {
        "core.py": _tags(["Engine"], []),
        "x.py": _tags([], [("Engine", 1, 0)]),
        "y.py": _tags([], [("Engine", 2, 0)]),
    }
    graph = build_graph(tags)
    ranks = file_ranks(graph, Focus({}, ()))
    assert abs(sum(ranks.files) - 1.0) < 1e-9
    assert ranks.files[0] == max(ranks.files)


def test_an_empty_project_ranks_nothing() -> None:
    graph = build_graph({})
    assert file_ranks(graph, Focus({}, ())).files == []
    assert top_definitions(graph, file_ranks(graph, Focus({}, ())), Boosts(), 5) == []


def test_a_bundled_typeshed_does_not_lead_the_map(tmp_path: Path) -> None:
    """A type checker's project carries stubs of the whole standard library, used everywhere."""
    root = tmp_path / "checker"
    stubs = {
        "checker/typeshed/stdlib/_typeshed/__init__.pyi": "class StrPath: ...\nclass Buffer: ...\n",
        "checker/typeshed/stdlib/os/__init__.pyi": "class PathLike: ...\n",
    }
    own = {
        "checker/nodes.py": "class Node:\n    pass\n\n\nclass Expression(Node):\n    pass\n",
        "checker/build.py": "from checker.nodes import Node\n\n\n"
        "def build(path: StrPath) -> Node:\n    return Node()\n",
    }
    for i in range(6):
        own[f"checker/pass_{i}.py"] = (
            "from checker.nodes import Expression, Node\n\n\n"
            f"def visit_{i}(node: Node, path: StrPath, data: Buffer, where: PathLike)"
            " -> Expression:\n    return Expression()\n"
        )
    for rel, text in {**stubs, **own}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    text = _map(root, max_tokens=2000)
    assert "typeshed" not in text, text
    assert _files_in_order(text)[0] == "checker/nodes.py", text


def test_a_name_only_a_test_stub_defines_passes_on_only_the_stubs_part() -> None:
    """`u8` used everywhere but defined only by a test stub most likely means the package the stub
    imitates: the stub must not take the lead from the project's own code."""
    tags = {
        "core.py": _tags(["Engine"], []),
        "tests/stubs/ext.pyi": _tags(["u8"], []),
        **{f"m{i}.py": _tags([], [("u8", 3, 0), ("Engine", 1, 0)]) for i in range(4)},
    }
    graph = build_graph(tags)
    ranks = file_ranks(graph, Focus({}, ()))
    assert abs(sum(ranks.files) - 1.0) < 1e-9
    assert graph.paths[ranks.files.index(max(ranks.files))] == "core.py"
    best = top_definitions(graph, ranks, Boosts(), 2)
    assert [d.name for d in best] == ["Engine", "u8"]


def test_a_kept_ranking_renders_what_a_fresh_map_renders(project: Path) -> None:
    """Ranks and their orders are kept between requests; every map is still the one a new
    process would render for the same request."""
    requests = [
        MapRequest(max_tokens=300),
        MapRequest(max_tokens=290),
        MapRequest(max_tokens=300, focus=("app/views.py",)),
        MapRequest(max_tokens=300, focus=("app/views.py",), identifiers=("slugify", "User")),
        MapRequest(max_tokens=300, focus=("app/views.py",), show_focus=True),
        MapRequest(max_tokens=300, message="where is load_user?"),
        MapRequest(max_tokens=280),
    ]
    kept = RepoMap(project, persist=False, workers=1, counter=EstimateCounter())
    for request in requests:
        fresh = RepoMap(project, persist=False, workers=1, counter=EstimateCounter())
        assert kept.render(request).text == fresh.render(request).text, request


def test_kept_best_definitions_grow_to_what_a_request_needs() -> None:
    """Each ranks keep the best definitions in order; a request for more than were kept takes
    more, and gets what a fresh selection over every score gives (ties in path, line order)."""
    tags = {
        f"m{i:03d}.py": _tags([f"fn_{i}_{j}" for j in range(12)], [(f"fn_{i + 1}_0", 1, 0)])
        for i in range(200)
    }
    graph = build_graph(tags)
    focus = Focus({"m007.py": 1.0}, ())
    kept = file_ranks(graph, focus)
    boosts = Boosts(names=frozenset({"fn_9_3"}), hidden=frozenset({"m008.py"}))
    for limit in (5, 1500, 2400):
        ours = top_definitions(graph, kept, boosts, limit)
        fresh = top_definitions(graph, file_ranks(graph, focus), boosts, limit)
        assert ours == fresh and len(ours) == min(limit, 2400 - 12)
        assert ours[0].name == "fn_9_3" and all(d.path != "m008.py" for d in ours)
        for better, worse in itertools.pairwise(ours):
            assert (-better.score, better.path, better.line) < (
                -worse.score,
                worse.path,
                worse.line,
            )
