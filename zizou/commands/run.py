"""`zizou run DECK`: one deck run from the command line, for scripts and CI.

The deck is a name (`zizou decks list`) or a deck file's path. Its input (`--input`: JSON for
an object input, text for a string input, `-` reads stdin) is checked against its schema
before any request. The run is the same as a tool call's: guardrails, the trace under
`.zizou/traces/`, approvals as `-p` gives them (nothing asked; `--allow` and `--yes` approve up
front). Exit codes are `-p`'s: 0 done, 1 the run failed, 2 usage or configuration (a bad
input, an unknown deck, a model that cannot be opened), 3 the deck spent its passes, 4 a
spending cap stopped it.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import click

from zizou.cli import run_flags
from zizou.errors import UsageError, ZizouError
from zizou.start import flags_from

EXIT_CODES = {"guardrail_passes": 3, "invalid_input": 2, "model": 2, "budget": 4}


@click.command("run")
@click.argument("deck_ref", metavar="DECK")
@click.option(
    "--input",
    "input_text",
    metavar="JSON|STRING",
    help="The deck's input: JSON for an object input, text for a string input ('-' reads stdin).",
)
@run_flags
@click.option("--model-force", metavar="ID", help="Run every deck on ID, whatever its own model.")
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "stream-json"]),
    help="text (the output), json (one result object) or stream-json (the trace's events, "
    "then the result).",
)
@click.option(
    "--state",
    "state_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The deck's state (JSON), loaded at the start and written back at the end.",
)
def run_command(
    deck_ref: str,
    input_text: str | None,
    model_force: str | None,
    output_format: str | None,
    state_file: Path | None,
    **run: Any,
) -> int:
    """Run a deck (a sub-agent written as a file) on one input, and print its output."""
    from zizou.config.options import resolve_options

    flags = flags_from(run, output_format=output_format, model_force=model_force)
    options = resolve_options(flags)
    if input_text == "-":
        input_text = sys.stdin.read()
    return run_deck(options, deck_ref, input_text, state_file)


def run_deck(
    options: Any,
    deck_ref: str,
    input_text: str | None,
    state_file: Path | None = None,
    out: TextIO | None = None,
    model: Any = None,
) -> int:
    """Run the deck `deck_ref` names as `options` say; the exit code."""
    from zizou.decks.tools import Caller, input_from_text
    from zizou.session.unattended import open_unattended

    out = out or sys.stdout
    started = time.monotonic()
    if options.model_force:  # every deck runs on it: no other model need be opened
        options = options.model_copy(update={"model": options.model_force})
    try:
        session = open_unattended(options, _warn, model, persist=False)
    except ZizouError as exc:  # no model to run on: a missing key, an unknown id
        raise UsageError(f"the deck {deck_ref} cannot run: {exc}") from None
    try:
        env = session.decks
        assert env is not None
        for warning in session.warnings:
            _warn(warning)
        deck = session.find_deck(deck_ref, Path.cwd(), trust_all=options.trust_hooks)
        value = input_from_text(deck, input_text)
        task = _load_state(deck, state_file)
        stream = options.output_format == "stream-json"
        if stream:
            env.tracing.sink = lambda event: _line(out, event)
        log = session.debug_log
        if log is not None:
            log.begin_turn(f"zizou run {deck_ref}", [])
        caller = Caller(state=task)
        title = f"zizou run {deck_ref}"
        outcome = asyncio.run(session.run_deck(deck, value, title=title, caller=caller))
        if log is not None:
            _close_log(log, outcome, env.deck_calls)
        if env.tracing.problem:
            _warn(env.tracing.problem)
        if task is not None and state_file is not None:
            _save_state(task, state_file)
        usage = env.deck_calls.usage
        if options.output_format == "text":
            if outcome.ok:  # the model's text reaches a terminal: no escape sequences
                text = outcome.output
                shown = text if isinstance(text, str) else json.dumps(text, indent=2)
                print(_plain(shown), file=out)
            else:
                _warn(f"{deck.name} failed ({outcome.code}): {outcome.message}")
        else:
            result: dict[str, Any] = {
                "type": "result",
                "subtype": "success" if outcome.ok else _subtype(outcome.code),
                "deck": deck.name,
                "result": outcome.output if outcome.ok else None,
                "model_calls": env.deck_calls.used,
                "usage": {
                    "input_tokens": usage.input_tokens,
                    "output_tokens": usage.output_tokens,
                },
                "cost_usd": usage.cost_usd,
                "duration_ms": round((time.monotonic() - started) * 1000),
            }
            if not outcome.ok:
                result["error"] = {"code": outcome.code, "message": outcome.message}
            _line(out, result)
        return 0 if outcome.ok else EXIT_CODES.get(outcome.code, 1)
    finally:
        if stopped := session.close():
            from zizou.session.unattended import stopped_jobs

            _warn(stopped_jobs(stopped))


def _load_state(deck: Any, path: Path | None) -> Any:
    """`--state FILE`: the deck's state, from FILE when it exists (else its zero value)."""
    if path is None:
        return None
    from zizou.contracts.schema_ts import TaskSchema
    from zizou.contracts.task_state import TaskState

    if deck.state_schema is None:
        raise UsageError(f"--state: the deck {deck.name} declares no state (`state:` in it)")
    task = TaskState(TaskSchema(deck.state_schema, str(deck.path)))
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return task
    except (OSError, ValueError) as exc:
        raise UsageError(f"--state {path}: cannot be read as JSON: {exc}") from None
    problems = task.restore(value)
    if problems:
        raise UsageError(f"--state {path}: does not fit the schema: {'; '.join(problems[:3])}")
    return task


def _save_state(task: Any, path: Path) -> None:
    from zizou.headless import write_whole

    data = (json.dumps(task.snapshot(), indent=2) + "\n").encode("utf-8")
    write_whole(path, data, lambda why: _warn(f"--state {path}: {why}"))


def _close_log(log: Any, outcome: Any, calls: Any) -> None:
    """The debug log of a `zizou run`: its nested requests, then how the run ended."""
    from zizou.contracts.events import TurnFinished

    text = json.dumps(outcome.output) if outcome.ok else ""
    message = None if outcome.ok else f"{outcome.code}: {outcome.message}"
    log.emit(
        TurnFinished("done" if outcome.ok else "error", text, calls.used, calls.usage, message)
    )


def _subtype(code: str) -> str:
    return {"guardrail_passes": "max_steps", "budget": "budget"}.get(code, "error")


def _line(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


def _plain(text: str) -> str:
    from zizou.terminal_text import strip_terminal_controls

    return strip_terminal_controls(text)


def _warn(message: str) -> None:
    print(_plain(f"zizou: {message}"), file=sys.stderr)


__all__ = ["run_command", "run_deck"]
