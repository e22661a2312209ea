"""The app and `zizou -p` are built from one `RunOptions`: config.toml's `max_steps` and `model`
and a rule saved for the project hold in both, the real CLI (against the loopback server) and
the app's runtime alike, and both front ends build the very same runtime from the same options.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from loopback import LoopbackServer

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import Flags, RunOptions, resolve_options
from zizou.config.project_rules import save_prefix
from zizou.contracts.events import PermissionDecided, TurnFinished
from zizou.contracts.protocols import Model
from zizou.providers import LiteLLMModel, RetryingModel
from zizou.providers.fake import ScriptedModel
from zizou.session.kernel import Session
from zizou.session.unattended import open_unattended
from zizou.ui.launch import build_ui_session, model_factory
from zizou.ui.session import ModelFactory, UiSession

KEY = "sk-test-loopback"  # what the CLI's environment has (conftest.cli_env)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def globs(count: int) -> list[dict[str, Any]]:
    """`count` steps that each ask for a different glob (the loop guard stays quiet)."""
    return [{"tool_calls": [call("glob", pattern=f"*.{n}")]} for n in range(count)]


@pytest.fixture
def home(zizou_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("ZIZOU_MODEL", raising=False)
    return zizou_home


@pytest.fixture
def sessions() -> Iterator[list[UiSession]]:
    opened: list[UiSession] = []
    yield opened
    for session in opened:
        session.kernel.close()


def app_session(
    options: RunOptions, opened: list[UiSession], models: ModelFactory | None = None
) -> UiSession:
    """The app's session as `run_tui` builds it, asking nobody (every question is denied)."""
    session = build_ui_session(options, ScriptedApprover(), models=models)
    opened.append(session)
    return session


def scripted(replies: list[dict[str, Any]]) -> ModelFactory:
    def open_it(model_id: str, *, api_key: str | None = None, api_base: str | None = None) -> Model:
        return ScriptedModel(replies, id=model_id)

    return open_it


async def turn(runtime: Session, text: str) -> list[Any]:
    return [event async for event in runtime.agent.run_turn(text)]


def test_max_steps_in_config_toml_stops_zizou_p_at_step_3(project: Path, home: Path) -> None:
    (home / "config.toml").write_text("max_steps = 3\n")
    with LoopbackServer(globs(5)) as srv:
        args = ["-p", "look around", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, home, ZIZOU_MODEL="")
        requests = srv.chat_requests
    assert result.code == 3, result.stderr
    out = result.json()
    assert (out["subtype"], out["steps"]) == ("max_steps", 3)
    assert len(requests) == 3


async def test_max_steps_in_config_toml_stops_the_apps_turn_at_step_3(
    project: Path, home: Path, sessions: list[UiSession]
) -> None:
    (home / "config.toml").write_text("max_steps = 3\n")
    options = resolve_options(Flags(cwd=project, debug_log=False))
    session = app_session(options, sessions, scripted(globs(5)))
    events = await turn(session.kernel, "look around")
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert (finished.reason, finished.steps) == ("max_steps", 3)


def test_a_rule_saved_for_the_project_applies_in_zizou_p(project: Path, home: Path) -> None:
    (home / "config.toml").write_text('sandbox = "off"\n')  # `wc` rules hold without a sandbox
    (project / "notes.txt").write_text("one\ntwo\n")
    save_prefix(project, "wc")
    script = [{"tool_calls": [call("run_bash", command="wc -l notes.txt")]}, {"text": "2"}]
    with LoopbackServer(script) as srv:
        args = ["-p", "count", "--api-base", srv.base_url, "--output-format", "stream-json"]
        result = run_cli(args, project, home)
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    [decided] = [e for e in events if e["type"] == "permission_decided"]
    assert (decided["verdict"], decided["by"], decided["rules"]) == (
        "allow",
        "saved rule",
        ["run_bash:wc"],
    )
    assert events[-1]["tool_calls"] == [{"name": "run_bash", "ok": True}]


async def test_a_rule_saved_for_the_project_applies_in_the_app(
    project: Path, home: Path, sessions: list[UiSession]
) -> None:
    (home / "config.toml").write_text('sandbox = "off"\n')
    (project / "notes.txt").write_text("one\ntwo\n")
    save_prefix(project, "wc")
    options = resolve_options(Flags(cwd=project, debug_log=False))
    script = [{"tool_calls": [call("run_bash", command="wc -l notes.txt")]}, {"text": "2"}]
    session = app_session(options, sessions, scripted(script))
    events = await turn(session.kernel, "count")
    [decided] = [e for e in events if isinstance(e, PermissionDecided)]
    assert (decided.verdict, decided.by, decided.rules) == ("allow", "saved rule", ("run_bash:wc",))


def test_model_in_config_toml_is_used_by_zizou_p(project: Path, home: Path) -> None:
    (home / "config.toml").write_text('model = "openai/from-config"\n')
    with LoopbackServer([{"text": "hi"}]) as srv:
        args = ["-p", "hello", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, home, ZIZOU_MODEL="")
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert requests[0]["model"] == "from-config"


def test_model_in_config_toml_is_used_by_the_app(
    project: Path, home: Path, sessions: list[UiSession]
) -> None:
    (home / "config.toml").write_text('model = "openai/from-config"\n')
    flags = Flags(cwd=project, api_base="http://127.0.0.1:9/v1", debug_log=False)
    options = resolve_options(flags, environ={})
    session = app_session(options, sessions, model_factory(options))
    assert session.model_id == "openai/from-config" and session.model_problem is None


def test_both_front_ends_build_the_same_runtime_from_the_same_options(
    project: Path, home: Path, sessions: list[UiSession]
) -> None:
    (home / "config.toml").write_text("max_steps = 4\n[retry]\nmax_attempts = 2\n")
    (project / "AGENTS.md").write_text("Run the tests with pytest.\n")
    save_prefix(project, "wc")
    flags = Flags(
        cwd=project,
        model="openai/test-model",
        api_base="http://127.0.0.1:9/v1",
        allow=("read_file",),
    )
    options = resolve_options(flags, environ={})
    headless = open_unattended(options, print)
    try:
        app = app_session(options, sessions).kernel
        assert headless.prompt.render_text().encode() == app.prompt.render_text().encode()
        assert headless.agent.runner.registry.schemas() == app.agent.runner.registry.schemas()
        assert headless.agent.config == app.agent.config
        assert headless.agent.config.max_steps == 4
        assert headless.agent.runner.rules == app.agent.runner.rules
        assert headless.agent.runner.rules.bash_prefixes == ("wc",)
        assert headless.sandbox_status == app.sandbox_status
        assert headless.agent.model.id == app.agent.model.id == "openai/test-model"
        models = (headless.agent.model, app.agent.model)
        assert [m.policy.max_attempts for m in models if isinstance(m, RetryingModel)] == [2, 2]
        inner = [m.inner for m in models if isinstance(m, RetryingModel)]
        assert [(m.timeouts, m.api_base) for m in inner if isinstance(m, LiteLLMModel)] == [
            (options.timeouts, options.api_base)
        ] * 2
        assert (headless.debug_log is None) == (app.debug_log is None)
    finally:
        headless.close()


def test_zizou_config_prints_each_value_and_where_it_came_from(project: Path, home: Path) -> None:
    (home / "config.toml").write_text("max_steps = 3\n")
    save_prefix(project, "wc")
    result = run_cli(["config", "--sandbox", "off"], project, home, ZIZOU_MODEL="openai/env")
    assert result.code == 0, result.stderr
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in result.stdout.splitlines()}
    assert rows["model"] == ["openai/env", "env ($ZIZOU_MODEL)"]
    assert rows["max_steps"][0] == "3" and rows["max_steps"][1].startswith("user config (")
    assert rows["sandbox"][0] == "off"
    assert rows["allow"][1].startswith("project (")
    assert rows["api_key"] == ["sk-...back", "env ($OPENAI_API_KEY)"]
    assert KEY not in result.stdout
    args = ["config", "-m", "openai/flag", "--max-steps", "9", "-C", str(project)]
    flagged = run_cli(args, home, home)  # from elsewhere, -C names the project
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in flagged.stdout.splitlines()}
    assert rows["model"] == ["openai/flag", "flag"]
    assert rows["max_steps"] == ["9", "flag"]
    assert rows["root"] == [str(project.resolve()), "flag"]
