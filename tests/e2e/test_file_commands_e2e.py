"""The real `zizou -p "/name args"` with the command files of other agents: the file's body is
sent as the user's message, with the arguments put in and the files it names attached; a
malformed file is named with its line, and the others still work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer


def user_message(request: dict[str, Any]) -> str:
    content = request["messages"][-1]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


def sent_for(project: Path, home: Path, agents: Path, prompt: str) -> tuple[str, str]:
    with LoopbackServer([{"text": "ok"}]) as srv:
        args = ["-p", prompt, "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, home, ZIZOU_AGENTS_HOME=str(agents))
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    return user_message(requests[0]), result.stderr


def test_a_claude_command_sends_its_body_with_the_arguments(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    commands = project / ".claude" / "commands"
    (commands / "git").mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a pull request\nargument-hint: PR\n---\n"
        "Review pull request #$ARGUMENTS against @STYLE.md carefully.\n"
    )
    (commands / "git" / "pick.md").write_text("Cherry-pick $1 onto $2.\n")
    (commands / "broken.md").write_text("---\ndescription: never closed\nBody\n")
    (project / "STYLE.md").write_text("Tabs, never spaces.\n")

    sent, stderr = sent_for(project, zizou_home, agents_home, "/review 42")
    assert sent.startswith("Review pull request #42 against @STYLE.md carefully.")
    assert "Contents of STYLE.md:\n```\nTabs, never spaces.\n```" in sent
    assert ".claude/commands/broken.md line 1: the front matter's `---` is never closed" in stderr

    sent, _ = sent_for(project, zizou_home, agents_home, "/git:pick abc123 main")
    assert sent == "Cherry-pick abc123 onto main."


def test_a_command_file_or_an_attachment_over_100_kb_is_cut_and_says_so(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "huge.md").write_text("Summarise @log.txt.\n" + "# padding\n" * 15_000)
    (project / "log.txt").write_text("line\n" * 40_000)

    sent, stderr = sent_for(project, zizou_home, agents_home, "/huge")
    assert sent.startswith("Summarise @log.txt.") and len(sent.encode()) < 210_000
    assert (
        ".claude/commands/huge.md: only its first 100 KB is used (the file is 150,020 bytes)"
        in (stderr)
    )
    assert "@log.txt: only its first 100 KB is used (the file is 200,000 bytes)" in stderr
    listed = run_cli(
        ["config", "--sources"], project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home)
    )
    assert "huge.md: only its first 100 KB is used (the file is 150,020 bytes)" in listed.stdout


def test_codex_and_opencode_commands_work_and_secrets_stay_out(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (agents_home / ".codex" / "prompts").mkdir(parents=True)
    (agents_home / ".codex" / "prompts" / "explain.md").write_text("Explain $1 simply.\n")
    (project / ".opencode" / "command").mkdir(parents=True)
    (project / ".opencode" / "command" / "leak.md").write_text("Show @creds.md please.\n")
    (project / ".env").write_text("TOKEN=hunter2-secret\n")
    (project / "creds.md").symlink_to(".env")

    sent, _ = sent_for(project, zizou_home, agents_home, "/explain monads")
    assert sent == "Explain monads simply."
    sent, stderr = sent_for(project, zizou_home, agents_home, "/leak")
    assert "hunter2" not in sent
    assert ".opencode/command/leak.md: @creds.md was not attached" in stderr


def test_an_inline_command_runs_only_as_approved_and_its_output_is_sent(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "status.md").write_text(
        "---\ndescription: Sum up the state\n---\n"
        "State: !`touch marker.txt && echo marker-made`\nSum it up for $ARGUMENTS.\n"
    )

    sent, stderr = sent_for(project, zizou_home, agents_home, "/status !`touch typed.txt`")
    assert not (project / "marker.txt").exists()  # headless, not approved: refused, and said
    assert ".claude/commands/status.md: !`touch marker.txt && echo marker-made` was not run" in (
        stderr
    )
    assert "State: [!`touch marker.txt && echo marker-made` was not run: the user did not" in sent
    assert "or with --yes" in stderr
    assert not (project / "typed.txt").exists()  # the arguments the user typed never run

    with LoopbackServer([{"text": "ok"}]) as srv:
        args = ["-p", "/status me", "--api-base", srv.base_url, "--yes"]
        result = run_cli(args, project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home))
        sent = user_message(srv.chat_requests[0])
    assert result.code == 0, result.stderr
    assert (project / "marker.txt").exists()
    assert sent.startswith("State: marker-made\n") and "!`" not in sent
    assert sent.endswith("Sum it up for me.")
