"""Compute decks: their code in a real worker process, served by a session built as the front
ends build it (scripted model for the model decks they spawn, real files, real subprocesses)."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from waiting import scaled

from zizou.config.options import RunOptions
from zizou.contracts.events import Nested, ToolCallFinished, ToolCallStarted
from zizou.decks.tools import Caller, action_of
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session
from zizou.session.unattended import HeadlessApprover

OUT = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
HEAD = """\
import os, sys
from zizou.decks.api import Deck
from zizou.decks.worker import DeckFailed, ToolFailed
"""


@pytest.fixture(autouse=True)
def home(zizou_home: Path) -> Path:
    return zizou_home


def folder(root: Path) -> Path:
    path = root / ".zizou" / "decks"
    path.mkdir(parents=True, exist_ok=True)
    return path


def compute_deck(root: Path, name: str, body: str, **fields: Any) -> None:
    """`NAME.deck.py`: a compute deck whose `run` is `body` (indented for it)."""
    options = {"input": "string", "output": OUT, **fields}
    args = ", ".join(f"{key}={value!r}" for key, value in options.items())
    text = (
        f"{HEAD}\nDECK = Deck(name={name!r}, description='Computes.', mode='compute', {args})\n\n"
        f"async def run(input, ctx):\n{textwrap.indent(textwrap.dedent(body), '    ')}"
    )
    (folder(root) / f"{name}.deck.py").write_text(text)


def model_deck(root: Path, name: str) -> None:
    front = {"description": "Sums up.", "input": "string", "output": OUT, "tools": []}
    (folder(root) / f"{name}.deck.md").write_text(f"---\n{json.dumps(front)}\n---\nSum it up.\n")


def session(root: Path, model: ScriptedModel | None = None, **options: Any) -> Session:
    opts = RunOptions(root=root, debug_log=False, trust_hooks=True, **options)
    return build_session(opts, model or ScriptedModel([]), HeadlessApprover(), persist=False)


async def run(runtime: Session, name: str, value: Any, nest: Any = None) -> Any:
    env = runtime.decks
    assert env is not None
    found = env.decks.get(name)
    assert found is not None, (env.decks.problems, env.decks.warnings)
    return await env.call(found, action_of(found), value, Caller(), nest)


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


async def test_a_compute_deck_spawns_a_model_deck_and_returns_its_output(tmp_path: Path) -> None:
    model_deck(tmp_path, "summer")
    compute_deck(
        tmp_path,
        "boss",
        """
        print("to stderr, not the protocol")
        out = await ctx.spawn_and_wait("summer", "the topic: " + input)
        return {"summary": out["summary"] + "!"}
        """,
    )
    model = ScriptedModel([{"tool_calls": [call("return_output", summary="short")]}])
    outcome = await run(session(tmp_path, model), "boss", "decks")
    assert (outcome.ok, outcome.output) == (True, {"summary": "short!"})
    assert model.requests[0].messages[-1] == {"role": "user", "content": "the topic: decks"}


async def test_a_failed_spawn_raises_deck_failed_and_ctx_fail_ends_the_run(tmp_path: Path) -> None:
    compute_deck(
        tmp_path,
        "boss",
        """
        try:
            await ctx.spawn_and_wait("nowhere", "x")
        except DeckFailed as exc:
            ctx.fail("could not: " + exc.code, code="timeout")
        """,
    )
    outcome = await run(session(tmp_path), "boss", "x")
    assert not outcome.ok and outcome.code == "deck_timeout"
    assert outcome.message == "could not: unknown_deck"


async def test_a_tool_runs_through_the_parent_and_is_traced(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    compute_deck(
        tmp_path,
        "reader",
        """
        text = await ctx.tool("read_file", path="notes.txt")
        ctx.return_({"summary": text})
        """,
        tools=["read_file"],
    )
    seen: list[Nested] = []
    trace: list[dict[str, Any]] = []
    runtime = session(tmp_path)
    assert runtime.decks is not None
    runtime.decks.tracing.sink = trace.append
    outcome = await run(runtime, "reader", "x", seen.append)
    assert outcome.ok and "alpha" in outcome.output["summary"]
    assert [type(n.event) for n in seen] == [ToolCallStarted, ToolCallFinished]
    kinds = [event["type"] for event in trace]
    assert kinds.index("tool.call") < kinds.index("tool.result") < kinds.index("deck.end")


async def test_a_tool_the_parents_rules_refuse_raises_tool_failed(tmp_path: Path) -> None:
    compute_deck(
        tmp_path,
        "runner",
        """
        try:
            await ctx.tool("run_bash", command="echo hi > made.txt")
        except ToolFailed as exc:
            return {"summary": exc.message}
        return {"summary": "ran"}
        """,
        tools=["run_bash"],
    )
    outcome = await run(session(tmp_path), "runner", "x")
    assert outcome.ok and "headless" in outcome.output["summary"]
    assert not (tmp_path / "made.txt").exists()


async def test_a_tool_not_among_the_decks_tools_is_refused(tmp_path: Path) -> None:
    compute_deck(
        tmp_path,
        "sneak",
        """
        try:
            await ctx.tool("write_file", path="x.txt", content="x")
        except ToolFailed as exc:
            return {"summary": exc.message}
        """,
    )
    outcome = await run(session(tmp_path), "sneak", "x")
    assert outcome.ok and "not one of sneak's tools" in outcome.output["summary"]
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("sandbox", ["off", "auto"])
async def test_a_deck_that_loops_forever_is_killed_at_its_timeout(
    tmp_path: Path, sandbox: str
) -> None:
    pid_file = tmp_path / "pid"
    name = unique("spin")
    compute_deck(
        tmp_path,
        name,
        f"""
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        while True:
            pass
        """,
        guardrails={"timeout_s": 1},
    )
    outcome = await run(session(tmp_path, sandbox=sandbox), name, "x")
    assert not outcome.ok and outcome.code == "timeout"
    if sandbox == "off":  # in the sandbox the pid is its namespace's own
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.read_text()), 0)
    assert workers_of(name) == []


async def test_a_run_stopped_by_the_person_leaves_no_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    name = unique("spin")
    compute_deck(
        tmp_path,
        name,
        f"""
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        while True:
            pass
        """,
    )
    running = asyncio.ensure_future(run(session(tmp_path, sandbox="off"), name, "x"))
    for _ in range(3000):  # a minute at most, for a slow machine: the worker is running
        if running.done() or (pid_file.exists() and pid_file.read_text()):
            break
        await asyncio.sleep(0.02)
    assert not running.done()
    running.cancel()  # as Esc does
    with pytest.raises(asyncio.CancelledError):
        await running
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert workers_of(name) == []


def unique(name: str) -> str:
    """A deck name no other test run (in this process or another) has: the worker's argv."""
    return f"{name}_{secrets.token_hex(6)}"


def workers_of(name: str) -> list[int]:
    """The processes still running (zombies too) whose command line is the worker of `name`."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = entry.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"zizou.decks.worker" in argv and name.encode() in argv:
            found.append(int(entry.parent.name))
    return found


async def test_an_output_the_schema_refuses_is_invalid_output(tmp_path: Path) -> None:
    compute_deck(tmp_path, "wrong", "return {'summary': 3}")
    outcome = await run(session(tmp_path), "wrong", "x")
    assert not outcome.ok and outcome.code == "invalid_output"
    assert outcome.details == {"fields": ["summary"]}


async def test_a_crash_is_a_runtime_error_with_its_traceback(tmp_path: Path) -> None:
    compute_deck(tmp_path, "crash", "raise ValueError('no good')")
    outcome = await run(session(tmp_path), "crash", "x")
    assert not outcome.ok and outcome.code == "runtime"
    assert "ValueError: no good" in outcome.message and "crash.deck.py" in outcome.message
    assert "worker.py" not in outcome.message


def test_the_worker_imports_neither_litellm_nor_textual_nor_the_providers(tmp_path: Path) -> None:
    source = (
        f"{HEAD}\nDECK = Deck(name='mods', mode='compute', input='string', output='string')\n\n"
        "async def run(input, ctx):\n"
        "    return ' '.join(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('litellm', 'textual') or m.startswith('zizou.providers'))) or 'none'\n"
    )
    init = {"type": "init", "source": source, "path": "mods.deck.py", "input": "", "runId": "r"}
    done = subprocess.run(
        [sys.executable, "-P", "-m", "zizou.decks.worker", "mods"],
        input=json.dumps(init) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=scaled(60),
        check=True,
    )
    ready, ending = (json.loads(line) for line in done.stdout.splitlines())
    assert ready["type"] == "ready" and isinstance(ready["pid"], int)
    assert ending == {"type": "return", "output": "none"}


def test_a_message_the_worker_cannot_read_ends_it_with_an_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-m", "zizou.decks.worker", "x"],
        input="{not json\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=scaled(60),
        check=True,
    )
    ready, ending = (json.loads(line) for line in done.stdout.splitlines())
    assert ready["type"] == "ready" and ending["type"] == "error"
    assert "ProtocolError: a message is not JSON" in ending["message"]


async def test_an_untrusted_project_compute_deck_never_runs(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    name = unique("evil")
    compute_deck(tmp_path, name, "return {'summary': 'x'}")
    path = folder(tmp_path) / f"{name}.deck.py"
    path.write_text(f"open({str(marker)!r}, 'w').close()\n" + path.read_text())
    runtime = build_session(
        RunOptions(root=tmp_path, debug_log=False), ScriptedModel([]), HeadlessApprover()
    )
    assert runtime.decks is not None and runtime.decks.decks.get(name) is None
    assert any(f"zizou decks trust {name}" in warning for warning in runtime.warnings)
    assert not marker.exists() and workers_of(name) == []
