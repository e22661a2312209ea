"""`zizou map`: print the repo map the model would get, and optionally how it was made.

Kept at the edge like the rest of the CLI: it parses flags, asks the RepoMap, and prints. The
map goes to stdout; `--stats` goes to stderr so the map can still be piped.
"""

from __future__ import annotations

from pathlib import Path

import click

from zizou.confined import relative
from zizou.confined import resolve as resolve_in_root
from zizou.errors import PathError, UsageError
from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import DEFAULT_MAP_TOKENS, MapRequest, MapStats

MAX_TOKENS = 65_536


@click.command(
    "map",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="\b\nExamples:\n  zizou map --tokens 2048 --focus src/app.py\n  zizou map --stats",
)
@click.option(
    "--tokens",
    type=click.IntRange(0, MAX_TOKENS),
    default=DEFAULT_MAP_TOKENS,
    show_default=True,
    help="Token budget of the map.",
)
@click.option(
    "--focus",
    multiple=True,
    metavar="PATH",
    help="Rank towards this file or directory, as if pinned (repeatable).",
)
@click.option("--message", metavar="TEXT", default="", help="Rank as if the user had said TEXT.")
@click.option("--stats", is_flag=True, help="Print files, tags, timings and cache hits to stderr.")
@click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)
def map_command(
    tokens: int, focus: tuple[str, ...], message: str, stats: bool, cwd: Path | None
) -> int:
    """Print the repo map: the project's most relevant definitions within a token budget."""
    root = (cwd or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory: pass an existing project with -C")
    request = MapRequest(max_tokens=tokens, focus=_focus(root, focus), message=message)
    result = RepoMap(root).render(request)
    click.echo(result.text, nl=False)
    if stats:
        click.echo(format_stats(result.stats), err=True)
    return 0


def _focus(root: Path, paths: tuple[str, ...]) -> tuple[str, ...]:
    found: list[str] = []
    for raw in paths:
        try:
            path = resolve_in_root(root, raw)
        except PathError as exc:
            raise UsageError(f"--focus {raw}: {exc}") from exc
        if not path.exists():
            raise UsageError(f"--focus {raw}: no such file or directory in {root}")
        found.append(relative(root, path))
    return tuple(found)


def format_stats(stats: MapStats) -> str:
    tokenizer = stats.tokenizer + ("" if stats.tokenizer.startswith("cl100k") else " (inexact)")
    lines = [
        f"files: {stats.files} ({stats.sources} parsed sources, {stats.parsed} read now, "
        f"{stats.cache_hits} from cache, {stats.workers} workers)",
        f"tags: {stats.definitions} definitions, {stats.references} file-name references",
        f"map: {stats.shown_definitions} definitions in {stats.shown_files} files, "
        f"{stats.tokens}/{stats.budget} tokens ({tokenizer})",
        f"time: list {_ms(stats.list_s)}, parse {_ms(stats.parse_s)}, rank {_ms(stats.rank_s)}, "
        f"render {_ms(stats.render_s)}"
        + (" (the same map as before, from the memo)" if stats.memo else ""),
    ]
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


__all__ = ["format_stats", "map_command"]
