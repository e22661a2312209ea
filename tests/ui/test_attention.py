"""Calling the person back: which desktop notification a terminal shows, the sequences, and the
app ringing when an approval waits and when a long turn ends (Pilot, the terminal's writes
recorded)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ui_harness import MakeApp, send, settle

from zizou.config.settings import NotifySettings
from zizou.ui.attention import Attention, desktop_protocol, notification
from zizou.ui.screens.approval import ApprovalScreen


@pytest.mark.parametrize(
    ("setting", "environ", "expected"),
    [
        ("auto", {"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ("auto", {"TERM_PROGRAM": "WezTerm"}, "osc777"),
        ("auto", {"TERM_PROGRAM": "ghostty"}, "osc777"),
        ("auto", {"TERM": "foot"}, "osc777"),
        ("auto", {"TERM": "rxvt-unicode-256color"}, "osc777"),
        ("auto", {"TERM": "xterm-256color"}, None),  # not known to show one: the bell alone
        ("auto", {"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-0/default,1,0"}, None),
        ("osc9", {"TERM": "xterm-256color"}, "osc9"),
        ("osc777", {"TMUX": "/tmp/tmux-0/default,1,0"}, "osc777"),
        ("off", {"TERM_PROGRAM": "iTerm.app"}, None),
    ],
)
def test_the_desktop_notification_the_terminal_shows(
    setting: str, environ: dict[str, str], expected: str | None
) -> None:
    assert desktop_protocol(setting, environ) == expected


def test_the_sequences_carry_no_controls_and_pass_through_tmux() -> None:
    assert notification("osc9", "zizou", "done\x1b]0;x\a") == "\x1b]9;zizou: done ]0 x\a"
    assert notification("osc777", "zi;zou", "a;b") == "\x1b]777;notify;zi zou;a b\a"
    wrapped = notification("osc9", "zizou", "done", tmux=True)
    assert wrapped == "\x1bPtmux;\x1b\x1b]9;zizou: done\a\x1b\\"


def test_each_way_of_calling_back_can_be_turned_off() -> None:
    written: list[str] = []
    iterm = {"TERM_PROGRAM": "iTerm.app"}
    Attention(NotifySettings, written.append, iterm).call("waiting")
    assert written == ["\a\x1b]9;zizou: waiting\a"]
    written.clear()
    Attention(lambda: NotifySettings(bell=False), written.append, iterm).call("waiting")
    assert written == ["\x1b]9;zizou: waiting\a"]
    written.clear()
    Attention(lambda: NotifySettings(bell=False, desktop="off"), written.append, iterm).call(
        "waiting"
    )
    assert written == []


def test_only_a_turn_longer_than_after_s_calls_back() -> None:
    written: list[str] = []
    attention = Attention(lambda: NotifySettings(after_s=30), written.append, {})
    assert not attention.turn_finished(29.5, "finished") and written == []
    assert attention.turn_finished(31, "finished") and written == ["\a"]


def bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


async def test_an_approval_that_waits_rings_at_once(
    make_app: MakeApp, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TERM_PROGRAM", "TMUX"):  # a terminal without desktop notifications
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    app = make_app([bash("touch made.txt"), {"text": "made"}])
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.attention.write = written.append
        await send(pilot, "make the file")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert written == ["\a"]  # as the dialog opened, before any answer
        await pilot.press("y")
        await settle(pilot)
    assert written == ["\a"]  # a short turn: its end does not ring


async def test_a_turn_longer_than_after_s_rings_when_it_ends(
    make_app: MakeApp, project: Path
) -> None:
    notify = NotifySettings(after_s=0, desktop="osc777")
    app = make_app([{"text": "done"}], options={"notify": notify})
    written: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        app.attention.write = written.append
        await send(pilot, "hi")
        await settle(pilot)
    assert written == ["\a\x1b]777;notify;zizou;the turn finished after 0 s\a"]
