"""Finding hook files (the user's, the project's, read by fd without following a symlink) and
the store of the project hooks the user trusted."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from zizou.hooks.runtime import HookSource
from zizou.hooks.sources import (
    MAX_HOOK_BYTES,
    PROJECT_HOOKS,
    TRUST_FILE,
    TrustStore,
    discover,
    needs_trust,
    user_hooks_dir,
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return path


def project_hook(root: Path, name: str, data: str | bytes = "x = 1\n") -> Path:
    return write(root / PROJECT_HOOKS / name, data)


def only(sources: list[HookSource], name: str) -> HookSource:
    [source] = [s for s in sources if s.name == name]
    return source


# Discovery


def test_no_hook_dirs_is_no_hooks_and_no_warning(root: Path, home: Path) -> None:
    assert discover(root, home) == ([], [])
    (root / ".zizou").mkdir()
    assert discover(root, home) == ([], [])


def test_user_hooks_then_project_hooks_each_by_name(root: Path, home: Path) -> None:
    users = user_hooks_dir(home)
    assert users == home / "hooks"
    write(users / "b.py", "B = 1\n")
    write(users / "a.md", "---\ndo:\n  remind: hi\n---\n")
    project_hook(root, "z.py")
    project_hook(root, "a.py", "A = 1\n")
    project_hook(root, "m.md", "# m\n")
    for ignored in ("_private.py", ".hidden.py", "notes.txt", "README"):
        project_hook(root, ignored)
        write(users / ignored, "x = 1\n")

    sources, warnings = discover(root, home)

    assert warnings == []
    assert [(s.name, s.origin, s.kind) for s in sources] == [
        ("user:a.md", "user", "markdown"),
        ("user:b.py", "user", "python"),
        (".zizou/hooks/a.py", "project", "python"),
        (".zizou/hooks/m.md", "project", "markdown"),
        (".zizou/hooks/z.py", "project", "python"),
    ]
    first = only(sources, ".zizou/hooks/a.py")
    assert first.text == "A = 1\n"
    assert first.path == root.resolve() / ".zizou" / "hooks" / "a.py"
    assert first.sha256 == hashlib.sha256(b"A = 1\n").hexdigest()
    assert only(sources, "user:b.py").path == home.resolve() / "hooks" / "b.py"


def test_the_hash_is_of_the_exact_bytes(root: Path, home: Path) -> None:
    data = "\ufeffmessage = 'héllo'\r\n".encode()
    project_hook(root, "bom.py", data)
    [source], _ = discover(root, home)
    assert source.sha256 == hashlib.sha256(data).hexdigest()
    assert source.text == "message = 'héllo'\r\n"  # the BOM is not part of the text


def test_a_symlinked_project_hook_is_refused_not_followed(
    root: Path, home: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "outside.py", "SECRET = 1\n")
    project_hook(root, "real.py")
    (root / PROJECT_HOOKS / "out.py").symlink_to(outside)
    (root / PROJECT_HOOKS / "in.py").symlink_to(root / PROJECT_HOOKS / "real.py")

    sources, warnings = discover(root, home)

    assert [s.name for s in sources] == [".zizou/hooks/real.py"]
    assert len(warnings) == 2
    assert ".zizou/hooks/in.py" in warnings[0] and "symbolic link" in warnings[0]
    assert ".zizou/hooks/out.py" in warnings[1] and "symbolic link" in warnings[1]


def test_a_zizou_dir_that_is_a_symlink_out_of_the_project_is_refused(
    root: Path, home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "hooks" / "evil.py", "EVIL = 1\n")
    (root / ".zizou").symlink_to(elsewhere)

    sources, warnings = discover(root, home)

    assert sources == []
    assert len(warnings) == 1
    assert "project's hooks are skipped" in warnings[0] and ".zizou" in warnings[0]


def test_a_hooks_dir_that_is_a_symlink_is_refused(root: Path, home: Path, tmp_path: Path) -> None:
    elsewhere = write(tmp_path / "elsewhere" / "evil.py", "EVIL = 1\n").parent
    (root / ".zizou").mkdir()
    (root / PROJECT_HOOKS).symlink_to(elsewhere)
    sources, warnings = discover(root, home)
    assert sources == []
    assert len(warnings) == 1 and "symbolic link" in warnings[0]


def test_a_hooks_path_that_is_a_file_is_no_hooks(root: Path, home: Path) -> None:
    write(root / PROJECT_HOOKS, "not a directory")
    sources, warnings = discover(root, home)
    assert sources == []
    assert warnings == [".zizou/hooks is not a directory: the project's hooks are skipped"]


def test_unreadable_hooks_are_skipped_each_with_a_warning_naming_it(root: Path, home: Path) -> None:
    project_hook(root, "good.py")
    project_hook(root, "latin1.py", "name = 'café'\n".encode("latin-1"))
    project_hook(root, "huge.md", "x" * (MAX_HOOK_BYTES + 1))
    project_hook(root, "edge.md", "x" * MAX_HOOK_BYTES)  # the cap itself is fine
    (root / PROJECT_HOOKS / "dir.py").mkdir()
    os.mkfifo(root / PROJECT_HOOKS / "fifo.py")  # never opened: it would block a read

    sources, warnings = discover(root, home)

    assert [s.name for s in sources] == [".zizou/hooks/edge.md", ".zizou/hooks/good.py"]
    assert len(warnings) == 4
    by_name = {w.split()[2]: w for w in warnings}
    assert "not UTF-8" in by_name[".zizou/hooks/latin1.py"]
    assert "larger than" in by_name[".zizou/hooks/huge.md"]
    assert "not a regular file" in by_name[".zizou/hooks/dir.py"]
    assert "not a regular file" in by_name[".zizou/hooks/fifo.py"]


def test_the_users_hooks_skip_symlinks_non_utf8_and_fifos_too(
    root: Path, home: Path, tmp_path: Path
) -> None:
    users = user_hooks_dir(home)
    write(users / "ok.py", "OK = 1\n")
    write(users / "bytes.py", b"\xff\xfe\x00")
    (users / "link.py").symlink_to(write(tmp_path / "target.py", "T = 1\n"))
    os.mkfifo(users / "fifo.md")
    write(users / "big.py", "#" * (MAX_HOOK_BYTES + 10))

    sources, warnings = discover(root, home)

    assert [s.name for s in sources] == ["user:ok.py"]
    assert len(warnings) == 4
    by_name = {w.split()[2]: w for w in warnings}
    assert "not UTF-8" in by_name["user:bytes.py"]
    assert "symbolic link" in by_name["user:link.py"]
    assert "not a regular file" in by_name["user:fifo.md"]
    assert "larger than 256 KiB" in by_name["user:big.py"]


# Trust


def test_needs_trust_is_for_project_python_only(root: Path, home: Path) -> None:
    write(user_hooks_dir(home) / "mine.py", "M = 1\n")
    project_hook(root, "code.py")
    project_hook(root, "rule.md", "# r\n")
    sources, _ = discover(root, home)
    store = TrustStore(home)
    assert {s.name: needs_trust(s) for s in sources} == {
        "user:mine.py": False,
        ".zizou/hooks/code.py": True,
        ".zizou/hooks/rule.md": False,
    }
    assert {s.name: store.status(s) for s in sources} == {
        "user:mine.py": "no trust needed",
        ".zizou/hooks/code.py": "untrusted",
        ".zizou/hooks/rule.md": "no trust needed",
    }
    assert [store.is_trusted(s) for s in sources] == [True, False, True]
    builtin = HookSource("builtin:modes", "builtin", "python", render=lambda p: None)
    assert store.is_trusted(builtin) and store.status(builtin) == "no trust needed"


def test_trust_is_saved_privately_and_an_edit_makes_it_changed(root: Path, home: Path) -> None:
    hook = project_hook(root, "guard.py", "G = 1\n")
    [source], _ = discover(root, home)
    store = TrustStore(home)
    assert not store.is_trusted(source)

    store.trust(source)

    assert store.is_trusted(source) and store.status(source) == "trusted"
    saved = home / TRUST_FILE
    assert json.loads(saved.read_text()) == {
        "version": 1,
        "trusted": {str(root.resolve() / ".zizou/hooks/guard.py"): source.sha256},
    }
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert [p.name for p in home.iterdir() if p.name.endswith(".tmp")] == []
    assert TrustStore(home).is_trusted(source)  # read back by a new store

    hook.write_text("G = 2\n")
    [edited], _ = discover(root, home)
    fresh = TrustStore(home)
    assert edited.sha256 != source.sha256
    assert fresh.status(edited) == "changed" and not fresh.is_trusted(edited)
    fresh.trust(edited)
    assert TrustStore(home).status(edited) == "trusted"
    assert TrustStore(home).status(source) == "changed"  # the old content no longer is


def test_trust_keeps_what_another_process_trusted_meanwhile(root: Path, home: Path) -> None:
    project_hook(root, "a.py", "A = 1\n")
    project_hook(root, "b.py", "B = 1\n")
    (a, b), _ = discover(root, home)
    first, second = TrustStore(home), TrustStore(home)
    first.trust(a)
    second.trust(b)
    store = TrustStore(home)
    assert store.is_trusted(a) and store.is_trusted(b)


def test_trust_makes_the_config_dir(root: Path, tmp_path: Path) -> None:
    home = tmp_path / "new" / "config"
    project_hook(root, "a.py")
    [source], _ = discover(root, home)
    TrustStore(home).trust(source)
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert TrustStore(home).is_trusted(source)


def test_trusting_a_hook_that_needs_no_trust_writes_nothing(root: Path, home: Path) -> None:
    project_hook(root, "rule.md", "# r\n")
    [source], _ = discover(root, home)
    TrustStore(home).trust(source)
    assert not (home / TRUST_FILE).exists()


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"version": 2, "trusted": {}}', "version 2"),
        ('{"version": 1, "trusted": ["x"]}', '"trusted" is not an object'),
        ('{"version": 1, "trusted": {"/a.py": 3}}', '"trusted" is not an object'),
    ],
)
def test_a_corrupt_trust_file_trusts_nothing_and_says_why(
    root: Path, home: Path, content: str, why: str
) -> None:
    project_hook(root, "a.py")
    [source], _ = discover(root, home)
    good = TrustStore(home)
    good.trust(source)
    (home / TRUST_FILE).write_text(content)

    store = TrustStore(home)

    assert store.problem is not None and why in store.problem and TRUST_FILE in store.problem
    assert not store.is_trusted(source)
    assert store.status(source) == "untrusted"


def test_trusting_past_a_corrupt_file_sets_it_aside(root: Path, home: Path) -> None:
    project_hook(root, "a.py")
    [source], _ = discover(root, home)
    (home / TRUST_FILE).write_text("{oops")
    store = TrustStore(home)
    assert store.problem is not None

    store.trust(source)

    assert store.problem is None and store.is_trusted(source)
    assert (home / f"{TRUST_FILE}.bad").read_text() == "{oops"
    assert TrustStore(home).problem is None and TrustStore(home).is_trusted(source)


def test_a_trust_file_others_can_write_or_a_symlink_trusts_nothing(
    root: Path, home: Path, tmp_path: Path
) -> None:
    project_hook(root, "a.py")
    [source], _ = discover(root, home)
    TrustStore(home).trust(source)
    saved = home / TRUST_FILE
    saved.chmod(0o666)
    store = TrustStore(home)
    assert store.problem is not None and "other users can change it" in store.problem
    assert not store.is_trusted(source)

    moved = tmp_path / "elsewhere.json"
    saved.chmod(0o600)
    saved.rename(moved)
    saved.symlink_to(moved)
    store = TrustStore(home)
    assert store.problem is not None and "symbolic link" in store.problem
    assert not store.is_trusted(source)
