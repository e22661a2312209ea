"""`zizou decks list | check | new | trust` on real deck files in a scratch project and config."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import CliResult, run_main

from zizou.decks.files import PROJECT_DECKS
from zizou.decks.loader import load_decks


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    monkeypatch.setenv("ZIZOU_HOME", str(folder))
    return folder


@pytest.fixture
def root(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    (folder / PROJECT_DECKS).mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def zizou(capsys: pytest.CaptureFixture[str], *args: str) -> CliResult:
    return run_main(capsys, "decks", *args)


def deck(root: Path, name: str, text: str) -> Path:
    path = root / PROJECT_DECKS / name
    path.write_text(text, encoding="utf-8")
    return path


GREET = (
    "---\ninput:\n  type: object\n  properties:\n    name: {type: string}\n"
    "output: string\n---\nGreet them.\n"
)


def test_list_shows_each_deck_and_its_signature(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck(root, "greet.deck.md", GREET)
    deck(root, "bad.deck.md", "---\ncolour: red\n---\n")
    ran = zizou(capsys, "list")
    assert ran.code == 0
    rows = {re.split(r"\s{2,}", line)[0]: line for line in ran.stdout.splitlines()}
    assert set(rows) == {"explore", "greet", "review"}
    assert re.search(
        r"greet\s+project\s+\.zizou/decks/greet\.deck\.md\s+Greet them\.", rows["greet"]
    )
    assert rows["greet"].endswith("({name?} → string)")
    assert rows["explore"].endswith("({question, paths?} → {answer, findings})")
    assert ".zizou/decks/bad.deck.md:2: unknown key `colour`" in ran.stderr


def test_check_prints_each_problem_and_exits_1(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck(root, "root.deck.md", "---\nactions:\n  - path: greet.deck.md\n---\nx\n")
    deck(root, "greet.deck.md", "---\ndescription: no schemas\n---\nx\n")
    deck(root, "tools.deck.md", "---\ntools: [run_bash]\n---\nx\n")
    ran = zizou(capsys, "check")
    assert ran.code == 1  # as `zizou hooks check`
    assert ran.stdout.splitlines()[:2] == [
        ".zizou/decks/root.deck.md:3: greet is called as an action but declares no input "
        "schema (add `input:` to greet.deck.md)",
        "warning: tools has tools and passes=3; a deck with tools usually needs more "
        "(guardrails.passes)",
    ]
    assert ran.stdout.endswith("\n1 problem\n")


def test_check_is_clean_with_good_decks(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck(root, "greet.deck.md", GREET)
    ran = zizou(capsys, "check")
    assert (ran.code, ran.stdout.strip()) == (0, "3 decks OK")


def test_check_takes_deck_files_by_path(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "one.deck.md").write_text("---\ntools: [bogus]\n---\nx\n")
    ran = zizou(capsys, "check", "elsewhere/one.deck.md")
    assert ran.code == 1
    assert ran.stdout.startswith("elsewhere/one.deck.md:2: unknown tool 'bogus'")


def test_check_reports_every_problem_of_a_file(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deck(
        root,
        "many.deck.md",
        "---\ncolour: red\nguardrails: 7\ntools: [bogus]\n"
        "actions:\n  - path: missing.deck.md\n---\nx\n",
    )
    ran = zizou(capsys, "check")
    assert ran.code == 1
    found = [line.split(": ", 1)[0] for line in ran.stdout.splitlines() if "many.deck" in line]
    assert sorted(found) == [f".zizou/decks/many.deck.md:{n}" for n in (2, 3, 4, 6)]
    assert "the action file missing.deck.md does not exist" in ran.stdout
    assert ran.stdout.endswith("\n4 problems\n")


def test_new_writes_a_deck_that_loads(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = zizou(capsys, "new", "helper")
    assert (ran.code, ran.stdout.strip()) == (0, ".zizou/decks/helper.deck.md")
    found = load_decks(root, None)
    assert found.problems == [] and found.decks["helper"].declared
    again = zizou(capsys, "new", "helper")
    assert again.code == 2 and "exists already" in again.stderr


@pytest.mark.parametrize("name", ["zizou_x", "read_file", "bad name"])
def test_new_refuses_a_bad_name(root: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    ran = zizou(capsys, "new", name)
    assert ran.code == 2 and "cannot make the deck" in ran.stderr
    assert not list((root / PROJECT_DECKS).iterdir())


def test_new_refuses_a_symlinked_dot_zizou(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (tmp_path / "target").mkdir()
    (project / ".zizou").symlink_to(tmp_path / "target")
    monkeypatch.chdir(project)
    ran = zizou(capsys, "new", "helper")
    assert ran.code == 2 and "symbolic link" in ran.stderr
    assert list((tmp_path / "target").iterdir()) == []


PY_DECK = """\
from zizou.decks.api import Deck

DECK = Deck(name="asker", description="Asks.", input={"type": "object"}, output="string")
"""


def test_trust_lets_a_python_deck_load(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deck(root, "asker.deck.py", PY_DECK)
    listed = zizou(capsys, "list")
    assert "asker" not in listed.stdout and "zizou decks trust asker" in listed.stderr
    ran = zizou(capsys, "trust", "asker")
    assert ran.code == 0, ran.stderr
    assert ran.stdout.startswith(".zizou/decks/asker.deck.py\n  sha256 ")
    assert "trusted" in ran.stdout
    assert "asker" in zizou(capsys, "list").stdout
    assert "already trusted" in zizou(capsys, "trust", "asker").stdout
    missing = zizou(capsys, "trust", "nothing")
    assert missing.code == 2 and "no Python deck nothing" in missing.stderr
