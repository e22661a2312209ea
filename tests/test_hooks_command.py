"""`zizou hooks list | trust PATH | check`, on real hook files in a scratch project and a
scratch config dir."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from waiting import scaled

from zizou.cli import main
from zizou.hooks.sources import PROJECT_HOOKS, TRUST_FILE


@dataclass
class Ran:
    code: int
    out: str
    err: str


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    monkeypatch.setenv("ZIZOU_HOME", str(folder))
    return folder


@pytest.fixture
def root(tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "project"
    (folder / PROJECT_HOOKS).mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def zizou(capsys: pytest.CaptureFixture[str], *args: str) -> Ran:
    with pytest.raises(SystemExit) as exited:
        main(["hooks", *args])
    captured = capsys.readouterr()
    assert isinstance(exited.value.code, int)
    return Ran(exited.value.code, captured.out, captured.err)


def hook(root: Path, name: str, text: str) -> Path:
    path = root / PROJECT_HOOKS / name
    path.write_text(text, encoding="utf-8")
    return path


GOOD_MD = "---\nwhen:\n  every_steps: 3\ndo:\n  remind: keep the plan current\n---\n"


def test_list_with_no_hooks_says_where_they_go(
    root: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = zizou(capsys, "list")
    assert ran.code == 0
    assert ran.out.startswith("no hooks:")
    assert ".zizou/hooks/" in ran.out and str(home / "hooks") in ran.out


def test_list_shows_kind_origin_trust_and_hash(
    root: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "hooks").mkdir()
    (home / "hooks" / "mine.py").write_text("MINE = 1\n")
    hook(root, "guard.py", "GUARD = 1\n")
    hook(root, "rule.md", GOOD_MD)

    ran = zizou(capsys, "list")

    assert ran.code == 0, ran.err
    lines = [re.split(r"\s{2,}", line) for line in ran.out.splitlines()]
    assert lines[0][:4] == ["user:mine.py", "python", "user", "no trust needed"]
    assert lines[1][:4] == [".zizou/hooks/guard.py", "python", "project", "untrusted"]
    assert lines[2] == [".zizou/hooks/rule.md", "markdown", "project", "no trust needed"]
    hashes = [line[4].removeprefix("sha256 ") for line in lines[:2]]
    assert all(len(h) == 12 and int(h, 16) >= 0 for h in hashes)
    assert "1 project hook(s) will not run until trusted" in ran.out


def test_trust_then_edit_shows_changed(
    root: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = hook(root, "guard.py", "GUARD = 1\n")

    ran = zizou(capsys, "trust", ".zizou/hooks/guard.py")

    assert ran.code == 0, ran.err
    assert ".zizou/hooks/guard.py" in ran.out and "trusted" in ran.out
    saved = json.loads((home / TRUST_FILE).read_text())
    [digest] = saved["trusted"].values()
    assert f"sha256 {digest}" in ran.out
    assert "trusted " in zizou(capsys, "list").out
    assert "already trusted" in zizou(capsys, "trust", ".zizou/hooks/guard.py").out

    path.write_text("GUARD = 2\n")
    listed = zizou(capsys, "list").out
    assert "changed since trusted" in listed.splitlines()[0]
    again = zizou(capsys, "trust", ".zizou/hooks/guard.py")
    assert "trusted again" in again.out
    assert "changed" not in zizou(capsys, "list").out


def test_trust_takes_a_path_from_here_or_from_the_project(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hook(root, "a.py", "A = 1\n")
    hook(root, "b.py", "B = 1\n")
    monkeypatch.chdir(root / PROJECT_HOOKS)
    assert zizou(capsys, "trust", "a.py", "-C", str(root)).code == 0  # from here
    monkeypatch.chdir(tmp_path)
    assert zizou(capsys, "trust", "-C", str(root), ".zizou/hooks/b.py").code == 0  # the project's
    listed = zizou(capsys, "list", "-C", str(root)).out
    assert "untrusted" not in listed and listed.count(" trusted ") == 2


def test_trust_refuses_what_is_not_a_project_python_hook(
    root: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hook(root, "rule.md", GOOD_MD)
    (home / "hooks").mkdir()
    (home / "hooks" / "mine.py").write_text("MINE = 1\n")
    (root / "script.py").write_text("S = 1\n")

    for path, why in [
        ("script.py", "is not one of this project's hooks"),
        (".zizou/hooks/missing.py", "is not one of this project's hooks"),
        (".zizou/hooks/rule.md", "Markdown hook"),
        (str(home / "hooks" / "mine.py"), "your own hook"),
    ]:
        ran = zizou(capsys, "trust", path)
        assert ran.code == 2, path
        assert why in ran.err, ran.err
    assert not (home / TRUST_FILE).exists()


def test_check_compiles_but_never_runs_an_untrusted_hook(
    root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran.txt"
    hook(root, "sneaky.py", f"open({str(marker)!r}, 'w').write('ran')\n")

    ran = zizou(capsys, "check")

    assert ran.code == 0, ran.out
    assert ".zizou/hooks/sneaky.py: ok (compiles; not run: untrusted)" in ran.out
    assert not marker.exists()

    assert zizou(capsys, "trust", ".zizou/hooks/sneaky.py").code == 0
    ran = zizou(capsys, "check")
    assert ran.code == 0
    assert ".zizou/hooks/sneaky.py: ok (compiles and loads)" in ran.out
    assert marker.read_text() == "ran"  # trusted: loaded as a session would


def test_check_reports_syntax_errors_with_their_line(
    root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hook(root, "fine.py", "X = 1\n")
    hook(root, "broken.py", "X = 1\n\ndef f(:\n    pass\n")

    ran = zizou(capsys, "check")

    assert ran.code == 1
    assert ".zizou/hooks/broken.py:3: syntax error" in ran.out
    assert ".zizou/hooks/fine.py: ok" in ran.out
    assert "\n1 problem\n" in ran.out


def test_check_loads_trusted_hooks_and_reports_import_time_errors(
    root: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (home / "hooks").mkdir()
    (home / "hooks" / "mine.py").write_text("import no_such_module_for_zizou\n")
    hook(root, "raises.py", "X = 1\n\n\ndef boom():\n    raise RuntimeError('no')\n\n\nboom()\n")
    assert zizou(capsys, "trust", ".zizou/hooks/raises.py").code == 0

    ran = zizou(capsys, "check")

    assert ran.code == 1
    assert "user:mine.py:1: failed to load: ModuleNotFoundError" in ran.out
    assert ".zizou/hooks/raises.py:5: failed to load: RuntimeError: no" in ran.out
    assert "2 problems" in ran.out


def test_check_counts_skipped_files_and_a_corrupt_trust_file(
    root: Path, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hook(root, "ok.py", "OK = 1\n")
    (root / PROJECT_HOOKS / "latin1.py").write_bytes("é = 1\n".encode("latin-1"))
    (root / PROJECT_HOOKS / "link.py").symlink_to(root / PROJECT_HOOKS / "ok.py")
    (home / TRUST_FILE).write_text("{broken")

    ran = zizou(capsys, "check")

    assert ran.code == 1
    assert "latin1.py is skipped: it is not UTF-8" in ran.out
    assert "link.py is skipped: it is a symbolic link" in ran.out
    assert "trusted hooks file" in ran.out and "cannot be used" in ran.out
    assert ".zizou/hooks/ok.py: ok (compiles; not run: untrusted)" in ran.out
    assert "3 problems" in ran.out

    listed = zizou(capsys, "list")
    assert listed.code == 0 and "cannot be used" in listed.err  # a warning, not a failure


def test_check_with_no_hooks_is_fine(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ran = zizou(capsys, "check")
    assert ran.code == 0 and "no hooks to check" in ran.out


def test_check_checks_markdown_hooks(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hook(root, "good.md", GOOD_MD)
    hook(root, "bad.md", "---\ndo:\n  shout: loudly\n---\n")

    ran = zizou(capsys, "check")

    assert ran.code == 1
    assert ".zizou/hooks/good.md: ok" in ran.out
    bad = [line for line in ran.out.splitlines() if line.startswith(".zizou/hooks/bad.md: ")]
    assert bad and any("shout" in line for line in bad)


def test_the_installed_command_lists_hooks(root: Path, home: Path) -> None:
    """End to end: the `zizou` script of the venv, in the project, with its own config dir."""
    script = Path(sys.executable).parent / "zizou"
    if not script.exists():
        pytest.skip("no zizou script beside this Python")
    hook(root, "guard.py", "GUARD = 1\n")
    (root / PROJECT_HOOKS / "away.py").symlink_to("/etc/hostname")
    env = {"PATH": "/usr/bin:/bin", "ZIZOU_HOME": str(home), "NO_COLOR": "1"}

    proc = subprocess.run(
        [str(script), "hooks", "list"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
        check=False,
    )

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:4] == [".zizou/hooks/guard.py", "python", "project", "untrusted"]
    assert "away.py is skipped: it is a symbolic link" in proc.stderr
