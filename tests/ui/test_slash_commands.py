"""Every slash command, unknown commands, and paths that only look like commands."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.command import CommandList, CommandPalette
from ui_harness import SESSION_ID, MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.config.project_rules import load_prefixes, save_prefix
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.screens.text_viewer import TextViewerScreen
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage


def said(app: object) -> str:
    notices = app.query(Notice)  # type: ignore[attr-defined]
    return "\n".join(n.message if n.has_rows else str(n.render()) for n in notices)


async def test_help_lists_every_command(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/help")
        text = said(app)
        for name in (
            "/clear",
            "/model",
            "/models",
            "/keys",
            "/sessions",
            "/prompt",
            "/context",
            "/add",
            "/drop",
            "/workspace",
            "/export",
            "/cost",
            "/permissions",
            "/log",
            "/state",
            "/instructions",
            "/skills",
            "/history",
            "/reset",
            "/modelid",
            "/ollama",
            "/exit",
            "Esc",
            "Ctrl+J",
        ):
            assert name in text


async def test_unknown_commands_suggest_the_nearest_and_paths_are_sent(
    make_app: MakeApp,
) -> None:
    app = make_app([{"text": "about env"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/hlep")
        assert "Unknown command /hlep. Did you mean /help?" in said(app)
        await send(pilot, "/usr/bin/env is broken")
        await settle(pilot)
        assert [m.text for m in app.query(UserMessage)] == ["/usr/bin/env is broken"]


async def test_clear_starts_a_new_conversation(make_app: MakeApp) -> None:
    app = make_app([{"text": "one"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        await send(pilot, "/clear")  # the new session's file is made in a worker
        await settle(pilot, lambda: "New conversation" in said(app))
        assert not app.query(AssistantMessage)
        assert app.session.kernel.agent.conversation.messages == []
        assert app.session.kernel.session_id != SESSION_ID
        assert "New conversation" in said(app)


async def test_a_message_sent_while_clear_runs_goes_to_the_new_conversation(
    make_app: MakeApp,
) -> None:
    app = make_app([{"text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        await send(pilot, "/clear")
        await send(pilot, "again")  # queued while the new session is made, then sent to it
        await settle(pilot, lambda: "New conversation" in said(app))
        await settle(pilot)
        messages = app.session.kernel.agent.conversation.messages
        assert [m["content"] for m in messages] == ["again", "two"]
        assert [m.text for m in app.query(UserMessage)] == ["again"]


async def test_exit_and_quit_leave(make_app: MakeApp) -> None:
    for command in ("/exit", "/quit"):
        app = make_app()
        async with app.run_test(size=(100, 30)) as pilot:
            await send(pilot, command)
            await pilot.pause()
        assert app.return_code == 0


async def test_model_shows_and_switches_and_names_a_missing_key(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/model")
        assert "Model: scripted" in said(app)
        await send(pilot, "/model other model-x")
        assert app.session.model_id == "other/model-x"
        await send(pilot, "hi")
        await settle(pilot)
        assert app.query(AssistantMessage).last().source == "hello from other/model-x"
        await send(pilot, "/model nokey/m")
        assert "set NOKEY_API_KEY" in said(app)
        assert app.session.model_id == "other/model-x"


async def test_prompt_shows_the_compiled_system_prompt(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/prompt")  # rendered in a worker: the repo map can take a while
        await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
        assert isinstance(app.screen, TextViewerScreen)
        assert "# BASE INSTRUCTIONS" in app.screen.text
        await pilot.press("escape")
        assert not isinstance(app.screen, TextViewerScreen)


async def test_context_sets_the_repo_map_budget_or_says_it_is_missing(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.session.kernel.prompt
        await send(pilot, "/context huge")
        assert "Use light, default or max" in said(app)
        if not hasattr(prompt, "map_tokens"):
            await send(pilot, "/context max")
            assert "repo map is not available" in said(app)
            prompt.map_tokens = 1024  # type: ignore[attr-defined]
        for name, budget in (("light", 0), ("max", 8192), ("default", 1024)):
            await send(pilot, f"/context {name}")
            assert prompt.map_tokens == budget  # type: ignore[attr-defined]


async def test_add_and_drop_open_and_close_windows(make_app: MakeApp, project: Path) -> None:
    (project / "a.py").write_text("A = 1\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        state = app.session.kernel.state
        await send(pilot, "/add a.py")
        assert [w.path for w in state.windows] == ["a.py"]
        await send(pilot, "/add ../outside.py")
        assert "outside the project root" in said(app)
        await send(pilot, "/drop a.py")
        assert state.windows == ()


async def test_export_writes_the_transcript(make_app: MakeApp, project: Path) -> None:
    app = make_app([{"text": "The **answer**."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "question?")
        await settle(pilot)
        await send(pilot, "/export out.md")
        text = (project / "out.md").read_text()
        assert "## You\n\nquestion?" in text and "The **answer**." in text
        assert (project / "out.md").stat().st_mode & 0o777 == 0o600


async def test_export_is_redacted_private_and_kept_out_of_the_project(
    make_app: MakeApp, project: Path
) -> None:
    key = "sk-proj-Abcdefghij0123456789klmnopqrstuv"
    app = make_app([{"text": "Noted."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, f"my key is {key}")
        await settle(pilot)
        await send(pilot, "/export")
        target = project / ".zizou" / "exports" / f"zizou-{SESSION_ID}.md"
        assert f"Transcript saved to {target}" in said(app)
        text = target.read_text()
        assert key not in text and "my key is [REDACTED]" in text
        assert target.stat().st_mode & 0o777 == 0o600
        assert not list(project.glob("zizou-*.md"))


async def test_cost_and_log_report_the_usage(make_app: MakeApp, project: Path) -> None:
    app = make_app([{"text": "ok", "prompt_tokens": 100, "completion_tokens": 7, "cost_usd": 0.25}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        await send(pilot, "/cost")
        assert "100 tokens in, 7 out, cost $0.2500, 1 turn." in said(app)
        await send(pilot, "/log")
        assert f"Debug log: {project / 'zizou-debug.log'}" in said(app)
        assert "Last turn 100 in, 7 out, cost $0.2500." in said(app)


async def test_permissions_lists_saved_rules_and_removes_them(
    make_app: MakeApp, project: Path
) -> None:
    save_prefix(project, "pytest")
    app = make_app(rules=Rules(bash_prefixes=("pytest",)))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/permissions")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        screen = app.screen
        assert isinstance(screen, PickerScreen)
        assert [e.label for e in screen.entries] == ["run_bash: pytest"]
        await pilot.press("d")
        await settle(pilot, lambda: not load_prefixes(project))
        assert app.session.kernel.agent.runner.rules.bash_prefixes == ()


def listed(app: App[object]) -> bool:
    """The command palette has gathered what matches its input, the best match highlighted."""
    group = CommandPalette._GATHER_COMMANDS_GROUP
    if any(w.group == group and not w.is_finished for w in app.workers):
        return False
    found = app.screen.query(CommandList)
    return bool(found) and found.first().option_count > 0 and found.first().highlighted == 0


async def test_the_command_palette_runs_slash_commands(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"/cost")
        await settle(pilot, lambda: listed(app))
        await pilot.press("enter")
        await settle(pilot, lambda: "This session" in said(app))


async def test_reset_starts_a_new_conversation_as_clear_does(make_app: MakeApp) -> None:
    app = make_app([{"text": "one"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        await send(pilot, "/reset")
        await settle(pilot, lambda: "New conversation" in said(app))
        assert not app.query(AssistantMessage)
        assert app.session.kernel.agent.conversation.messages == []
        assert app.session.kernel.session_id != SESSION_ID


async def test_instructions_and_skills_list_them_and_show_one(
    make_app: MakeApp, project: Path
) -> None:
    folder = project / ".zizou" / "instructions"
    folder.mkdir(parents=True)
    (folder / "deploy.md").write_text("---\ndescription: Ship it safely.\n---\nRun make ship.\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for command in ("/instructions", "/skills"):
            await send(pilot, command)
            listed = app.query(Notice).last().message
            assert "  deploy: Ship it safely.  [project]" in listed
            assert "  git-commit: " in listed and "[builtin]" in listed
        await send(pilot, "/skills deploy")
        await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
        assert "Run make ship." in app.screen.text  # type: ignore[attr-defined]
        await pilot.press("escape")
        await send(pilot, "/instructions deplyo")
        assert "No instructions named 'deplyo'. Did you mean deploy?" in said(app)


async def test_history_shows_and_sets_the_window(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        agent = app.session.kernel.agent
        await send(pilot, "/history")
        assert "History window: all" in said(app)
        await send(pilot, "/history 1")
        assert agent.config.history_window == 1
        assert "the last earlier turn and the current turn" in said(app)
        await send(pilot, "/history lots")
        assert "Not a number of turns: 'lots'." in said(app)
        assert agent.config.history_window == 1
        await send(pilot, "/history all")
        assert agent.config.history_window is None


async def test_help_wraps_a_description_under_the_description_column(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(80, 90)) as pilot:
        await send(pilot, "/help")
        await settle(pilot)
        notice = app.query(Notice).last()
        lines = [notice.render_line(y).text.rstrip() for y in range(notice.size.height)]
        assert lines[1].strip() == "Conversation:"  # the sections, each with its title
        helped = next(line for line in lines if "/help" in line)
        column = helped.index("show the commands and keys")
        assert all(line.startswith("  ") for line in lines[1:] if line)  # nothing at column 0
        wrapped = lines[lines.index(next(x for x in lines if "/modelid" in x)) + 1]
        assert wrapped == " " * column + "reached at"
