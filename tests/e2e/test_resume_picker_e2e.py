"""`zizou -r` without an ID opens the app's list of this project's sessions (tests/e2e/
test_tui_tmux.py shows it); where there is no app to pick in, it asks for the ID."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli


def test_r_without_an_id_in_a_headless_run_asks_for_the_id(project: Path, zizou_home: Path) -> None:
    done = run_cli(["-p", "hi", "-r", "--model", "openai/test-model"], project, zizou_home)
    assert done.code == 2
    assert "-r without an ID picks a session in the app; here name one: -r ID" in done.stderr
