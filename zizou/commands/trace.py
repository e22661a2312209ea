"""`zizou trace [RUNID]`: the recent deck runs, or one run's trace as a tree of its events.

The trace files are written by `zizou.decks.trace.Trace`; this reads them back for a person.
Values come from the project (a deck, a model's reply), so terminal controls are stripped
from everything printed.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from zizou.decks.trace import TRACES_DIR, Event, read_trace, trace_ends, trace_ids
from zizou.terminal_text import strip_terminal_controls

LIST_LIMIT = 20
INDENT = "  "


@click.command(name="trace", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("run_id", metavar="[RUNID]", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON lines.")
@click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)
def trace(run_id: str | None, as_json: bool, cwd: Path | None) -> None:
    """Deck runs as traced in .zizou/traces/: without RUNID the recent runs, newest first;
    with it, that run's events, nested by action."""
    from zizou.config.project_dir import project_dir

    root = project_dir(cwd)
    if run_id is None:
        _list_runs(root, as_json)
        return
    events = read_trace(root, run_id)
    if as_json:
        for event in events:
            click.echo(json.dumps(event, ensure_ascii=True))
        return
    for line in tree_lines(events):
        click.echo(line)


def _list_runs(root: Path, as_json: bool) -> None:
    ids = list(reversed(trace_ids(root)))[:LIST_LIMIT]
    if not ids:
        if not as_json:
            click.echo(
                f"no deck runs traced in {root / TRACES_DIR} yet: `zizou run DECK` makes one"
            )
        return
    rows: list[tuple[str, str, str, str]] = []
    for run_id in ids:
        first, last = trace_ends(root, run_id)
        if as_json:
            click.echo(json.dumps({"runId": run_id, "start": first, "end": last}))
            continue
        rows.append((run_id, _deck_of(first), *_outcome_of(last)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    for row in rows:
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[3]]).rstrip())


def _deck_of(first: Event | None) -> str:
    if first is None or first.get("type") != "run.start":
        return "?"
    return _plain(first.get("deckPath")) or "?"


def _outcome_of(last: Event | None) -> tuple[str, str]:
    """The result and elapsed time of a run, from its last event."""
    if last is None:
        return "unreadable", ""
    kind = last.get("type")
    if kind == "trace.truncated":
        return "truncated", ""
    if kind != "run.end":
        return "unfinished", ""
    return _result(last), _elapsed(last.get("elapsedMs"))


def tree_lines(events: list[Event]) -> list[str]:
    """One line an event: its time since the first, indented by action nesting."""
    start = _time(events[0]) if events else None
    inner: dict[str, int] = {}  # actionCallId -> the level of the events inside that action
    lines = []
    for event in events:
        level = _level(event, inner)
        lines.append(f"{_offset(start, _time(event))}  {INDENT * level}{describe(event)}")
    return lines


def _offset(start: datetime | None, at: datetime | None) -> str:
    try:
        return f"+{(at - start).total_seconds():.3f}s" if at and start else "+?"
    except TypeError:  # one time with a zone, one without
        return "+?"


def _level(event: Event, inner: dict[str, int]) -> int:
    call, parent = event.get("actionCallId"), event.get("parentActionCallId")
    around = inner.get(parent, 0) if isinstance(parent, str) else 0
    if not isinstance(call, str):
        return 0
    kind = event.get("type")
    if kind == "action.start":
        inner[call] = around + 1
        return around
    if kind == "action.end":
        return inner.get(call, around + 1) - 1
    return inner.get(call, around)


def describe(event: Event) -> str:
    """`action.end greet ✓ 1.2s`: an event's type, what it concerns, and how it went."""
    kind = _plain(event.get("type")) or "?"
    parts = [kind]
    label = _label(kind, event)
    if label:
        parts.append(label)
    if kind == "action.start" and event.get("depth") is not None:
        parts.append(f"(depth {_plain(event.get('depth'))})")
    if "ok" in event or "error" in event:
        parts.append(_result(event))
    elif kind in ("error", "suspense") and event.get("message"):
        parts.append(_plain(event.get("message")))
    if event.get("elapsedMs") is not None:
        parts.append(_elapsed(event.get("elapsedMs")))
    if kind == "trace.truncated":
        parts.append(f"at {_plain(event.get('maxBytes'))} bytes: later events were not kept")
    return " ".join(part for part in parts if part)


def _label(kind: str, event: Event) -> str:
    if kind.startswith(("run.", "deck.")):
        keys: tuple[str, ...] = ("deckPath",)
    elif kind.startswith("model."):
        keys = ("model",)
    elif kind.startswith("tool."):
        keys = ("tool", "toolName", "name")
    else:
        keys = ("actionName", "activity", "deckPath")
    return next((_plain(event[key]) for key in keys if event.get(key)), "")


def _result(event: Event) -> str:
    error = event.get("error")
    if event.get("ok") is True or (event.get("ok") is None and not error):
        return "✓"
    if isinstance(error, dict):
        code, message = _plain(error.get("code")), _plain(error.get("message"))
        return f"✗ {code}: {message}" if code and message else f"✗ {code or message}".rstrip()
    return f"✗ {_plain(error)}" if error else "✗"


def _elapsed(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return f"{value / 1000:.1f}s" if value >= 1000 else f"{value:.0f}ms"


def _time(event: Event) -> datetime | None:
    stamp = event.get("ts")
    try:
        return datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        return None


def _plain(value: Any) -> str:
    """A value as one line of text a terminal shows as it is."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return " ".join(strip_terminal_controls(text).split())


__all__ = ["describe", "trace", "tree_lines"]
