"""The workspace in the app: `/add`, `/drop` and `/workspace` in every form, `@PATH` in a message,
the sidebar following the windows live, and the context in use on the status line."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rich.text import Text
from ui_harness import MakeApp, send, settle

from zizou.providers.fake import ScriptedModel
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.sidebar import sidebar_text

APP = (
    "import os\n\n\ndef greet(name):\n    return f'Hello, {name}!'\n\n\ndef main():\n"
    "    greet('x')\n"
)


def notices(app: object) -> list[Notice]:
    return list(app.query(Notice))  # type: ignore[attr-defined]


def said(app: object) -> str:
    return "\n".join(str(n.render()) for n in notices(app))


def last(app: object) -> str:
    return str(notices(app)[-1].render())


def style_of(text: Text, part: str) -> str:
    """The style of the span that covers the start of `part` in `text`."""
    at = text.plain.index(part)
    styles = [str(s.style) for s in text.spans if s.start <= at < s.end]
    return " ".join(styles)


async def test_add_opens_a_file_its_lines_or_a_regex(make_app: MakeApp, project: Path) -> None:
    (project / "app.py").write_text(APP)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        state = app.session.kernel.state
        await send(pilot, "/add app.py")
        assert last(app).endswith("Opened w1: app.py lines 1-9.")
        await send(pilot, "/add app.py:4-5 app.py:8-")
        assert "Opened w2: app.py lines 4-5." in said(app)
        assert last(app).endswith("Opened w3: app.py lines 8-9.")
        await send(pilot, "/add app.py#/def main/")
        assert last(app).endswith("Opened w4: app.py lines 8-8 (/def main/).")
        await send(pilot, "/add @app.py:4-5")
        assert last(app).endswith("app.py lines 4-5 is already open as w2.")
        specs = [(w.id, w.spec) for w in state.windows]
        assert specs == [
            ("w1", "whole file"),
            ("w2", "lines 4-5"),
            ("w3", "lines 8-end"),
            ("w4", "/def main/"),
        ]
        assert all(w.by == "user" for w in state.windows)


async def test_add_refuses_what_cannot_be_shown_and_opens_nothing(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text(APP)
    (project / "logo.png").write_bytes(b"\x89PNG\0\0\0binary")
    (project / "src").mkdir()
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        pick = "type @ to complete"
        whole = "/add app.py opens the whole file"
        cases = {
            "/add": ("Which file?", "/add PATH:10-40"),
            "/add missing.py": ("missing.py is not a file in the project.", pick),
            "/add src": ("src is a directory; a window shows a file.", pick),
            "/add ../outside.py": ("outside the project root", pick),
            "/add logo.png": ("logo.png looks binary", None),
            "/add app.py:50-60": ("line 50 is past the end of the file (9 lines)", whole),
            "/add app.py:5-2": ("the lines must be 1 or more, first before last", "PATH#/regex/"),
            "/add app.py#/def nowhere/": ("/def nowhere/ matches nothing", whole),
            "/add app.py#/(unclosed/": ("does not compile", "PATH#/regex/"),
        }
        for command, (message, fix) in cases.items():
            await send(pilot, command)
            notice = notices(app)[-1]
            assert message in notice.message, command
            assert notice.has_class("-error") or notice.has_class("-warning"), command
            shown = str(notice.render())
            assert fix in shown if fix else "\n" not in shown, command
        assert app.session.kernel.state.windows == ()


async def test_drop_lists_closes_by_path_or_id_and_names_what_is_open(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text(APP)
    (project / "b.py").write_text("B = 1\n")
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        state = app.session.kernel.state
        await send(pilot, "/add app.py:1-3 app.py#/def greet/ b.py")
        await send(pilot, "/drop")
        listed = last(app)
        assert "Workspace: 3 windows" in listed
        assert "w2  app.py  /def greet/" in listed and "/drop w3 one" in listed
        await send(pilot, "/drop w2")
        assert last(app).endswith("Closed w2 app.py.")
        await send(pilot, "/drop nope.py")
        assert "nope.py is not open." in last(app) and "Open: w1 app.py, w3 b.py." in last(app)
        await send(pilot, "/drop ./app.py")
        assert last(app).endswith("Closed w1 app.py.")
        (project / "b.py").unlink()  # a deleted file's windows can still be closed
        await send(pilot, "/drop b.py")
        assert last(app).endswith("Closed w3 b.py.") and state.windows == ()
        await send(pilot, "/drop w9")
        assert "Open: nothing is open." in last(app)


async def test_workspace_lists_lines_anchors_and_why_a_window_is_not_shown(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text(APP)
    (project / "big.py").write_text("".join(f"line_{n} = {n}\n" for n in range(1, 400)))
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "/workspace")
        assert "The workspace is empty." in last(app)
        runtime = app.session.kernel
        runtime.prompt.context_window = 4_000  # a 1,000-token budget: one window must collapse
        await send(pilot, "/add big.py app.py#/def greet/ big.py:1-100")
        await asyncio.to_thread(runtime.prompt.render)
        (project / "app.py").write_text(APP.replace("greet", "hello"))
        await asyncio.to_thread(runtime.prompt.render)
        await send(pilot, "/workspace")
        listed = last(app).splitlines()
        assert listed[0].endswith("Workspace: 3 windows, shown to the model at every step:")
        assert listed[1] == "  w1  big.py  lines 1-399  collapsed to fit the workspace's budget"
        assert listed[2].startswith("  w2  app.py  lines 4-4  /def greet/  lost: not found: ")
        assert "matches nothing; last seen at lines 4-4" in listed[2]
        assert listed[3] == "  w3  big.py  lines 1-100"


async def test_a_message_opens_the_files_it_names_before_its_turn(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text(APP)
    (project / "notes.md").write_text("# notes\n")
    app = make_app([{"text": "Seen."}])
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "fix @app.py:4-5 (see @notes.md.) and ping me@example.com or @nobody")
        await settle(pilot)
        state = app.session.kernel.state
        assert [(w.id, w.path, w.spec) for w in state.windows] == [
            ("w1", "app.py", "lines 4-5"),
            ("w2", "notes.md", "whole file"),
        ]
        text = said(app)
        assert "Opened w1: app.py lines 4-5, named in your message." in text
        assert "nobody" not in text and "example.com" not in text
        model = app.session.kernel.agent.model
        assert isinstance(model, ScriptedModel)
        system = model.requests[0].system
        assert "## app.py · w1 · lines 4-5\n     4\tdef greet(name):" in system
        assert "## notes.md · w2 · lines 1-1" in system


async def test_the_sidebar_shows_a_window_lost_when_its_anchor_stops_matching(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text(APP)
    app = make_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await send(pilot, "/add app.py#/def greet/ app.py:1-2")
        runtime = app.session.kernel
        await asyncio.to_thread(runtime.prompt.render)  # from a thread, as a turn's step does
        await settle(pilot, lambda: app.sidebar.info.windows[0].span is not None)
        shown = sidebar_text(app.sidebar.info)
        assert "w1 app.py 4-4 /def greet/\nw2 app.py 1-2\n" in shown.plain
        assert "red" not in style_of(shown, "w1 app.py")
        (project / "app.py").write_text(APP.replace("greet", "hello"))
        await asyncio.to_thread(runtime.prompt.render)
        await settle(pilot, lambda: app.sidebar.info.windows[0].status == "lost")
        shown = sidebar_text(app.sidebar.info)
        assert "w1 app.py 4-4 /def greet/\n  /def greet/ matches nothing\n" in shown.plain
        assert style_of(shown, "w1 app.py") == "red"
        assert style_of(shown, "  /def greet/ matches") == "red"
        assert "red" not in style_of(shown, "w2 app.py")


async def test_the_status_line_shows_the_share_of_the_context_in_use(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([{"text": "one", "prompt_tokens": 120}, {"text": "two", "prompt_tokens": 1500}])
    async with app.run_test(size=(120, 30)) as pilot:
        assert "ctx" not in str(app.status.render())
        await send(pilot, "hi")
        await settle(pilot)
        assert "○ ready · ctx 120 " in str(app.status.render())  # the window is unknown
        model = app.session.kernel.agent.model
        model.context_window = 2_000  # type: ignore[attr-defined]
        await send(pilot, "again")
        await settle(pilot)
        line = app.status.render()
        assert "○ ready · ctx 75% " in str(line)
        assert style_of(line, "ctx 75%") == "yellow"  # filling up
        context = sidebar_text(app.sidebar.info).plain
        assert "1.5k tokens in the last request (75% of 2.0k)" in context


async def test_clear_keeps_the_open_windows(make_app: MakeApp, project: Path) -> None:
    (project / "app.py").write_text(APP)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "/add app.py:4-5")
        await send(pilot, "/clear")
        await settle(pilot, lambda: "New conversation" in said(app))
        windows = app.session.kernel.state.windows
        assert [(w.id, w.path, w.spec) for w in windows] == [("w1", "app.py", "lines 4-5")]
        assert app.sidebar.info.windows == windows
