"""Command files (`.claude/commands/*.md`) in the app: listed by /help beside zizou's own (a
clash named, zizou's own kept), completed in the prompt, offered in the palette, and run: the
model is sent the file's body with the arguments put in."""

from __future__ import annotations

from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.ui.completion import Context
from zizou.ui.widgets.messages import Notice, UserMessage


def said(app: object) -> str:
    notices = app.query(Notice)  # type: ignore[attr-defined]
    return "\n".join(n.message if n.has_rows else str(n.render()) for n in notices)


def command_files(project: Path) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a pull request\nargument-hint: PR\n---\n"
        "Review pull request #$ARGUMENTS carefully.\n"
    )
    (commands / "help.md").write_text("Not zizou's help.\n")


async def test_help_lists_the_command_files_and_names_a_clash(
    make_app: MakeApp, project: Path
) -> None:
    command_files(project)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "/help")
        text = said(app)
        assert "/review PR" in text and "Review a pull request" in text
        assert "/help is zizou's own command, which wins; not used" in text
        assert "Not zizou's help." not in text
        completer = app.composer.completer
        found = completer.suggest(Context("command", "rev", 0, 4))
        assert [s.value for s in found] == ["/review "]
        palette = [c.title for c in app.router.palette_commands()]
        assert "/review PR" in palette


async def test_a_command_file_sends_its_body_with_the_arguments(
    make_app: MakeApp, project: Path
) -> None:
    command_files(project)
    app = make_app([{"text": "looks good"}])
    async with app.run_test(size=(120, 40)) as pilot:
        model = app.session.kernel.agent.model
        await send(pilot, "/review 42")
        await settle(pilot, lambda: len(model.requests) == 1)  # type: ignore[attr-defined]
        await settle(pilot)
        assert model.requests[-1].messages[-1] == {  # type: ignore[attr-defined]
            "role": "user",
            "content": "Review pull request #42 carefully.",
        }
        assert [m.text for m in app.query(UserMessage)] == ["/review 42"]
        assert "Unknown command" not in said(app)
