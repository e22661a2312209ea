"""Undo of what commands changed where they run in no copy-on-write layer, on real files in a
real git repository with tracked, untracked and ignored files: each command snapshotted before
and after it ran, its changes restored byte for byte (deleted untracked files, `mv`, `sed -i`,
`> file`, `git checkout -- .`, `git clean -fdx`) once the user says so (each is only maybe the
command's: undo asks, naming it, and goes ahead when forced), what no snapshot keeps named and
never claimed, and the user's `.git` never touched."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from checkpoint_session import Session

from zizou.checkpoints import UndoRefused, caveats
from zizou.checkpoints.shadow import SHADOW_DIR, ShadowRepo
from zizou.sessions.records import UnkeptPath

BINARY = bytes(range(256)) * 64
CRLF = b"x one\r\nx two\r\n"
SCRIPT = b"#!/bin/sh\necho x\n"
GIT_ID = ("-c", "user.name=t", "-c", "user.email=t@example.com")


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *GIT_ID, *args], cwd=root, env=env, check=True, capture_output=True)


def tree_of(root: Path, skip: tuple[str, ...] = (".git", ".zizou")) -> dict[str, bytes]:
    """Every file under `root` (its `.git` and `.zizou` left out), with its bytes."""
    found: dict[str, bytes] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in skip or path.is_dir():
            continue
        found[rel] = b"->" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return found


def digest_of(directory: Path) -> str:
    """One hash of every file (name, bytes) under `directory`."""
    hasher = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            hasher.update(path.relative_to(directory).as_posix().encode() + path.read_bytes())
    return hasher.hexdigest()


@pytest.fixture
def repo(session: Session) -> Path:
    """A repository with tracked files (committed), untracked ones, and ignored ones."""
    root = session.root
    (root / ".gitignore").write_text("*.log\ndata/cache/\n")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / "src" / "pic.bin").write_bytes(BINARY)
    (root / "a.txt").write_text("move me\n")
    (root / "c.txt").write_bytes(CRLF)
    (root / "d.txt").write_text("emptied\n")
    (root / "run.sh").write_bytes(SCRIPT)
    (root / "run.sh").chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "src" / "notes.md").write_text("untracked x\n")  # untracked: in no commit
    (root / "data" / "cache").mkdir(parents=True)
    (root / "data" / "seed.csv").write_text("untracked,x\n")
    (root / "data" / "cache" / "big.bin").write_bytes(BINARY)  # ignored
    (root / "build.log").write_text("ignored\n")
    return root


def test_the_scripted_commands_are_undone_byte_for_byte(session: Session, repo: Path) -> None:
    before, git_dir = tree_of(repo), digest_of(repo / ".git")
    script = "rm -rf src data; mv a.txt b.txt; sed -i s/x/y/ c.txt; echo > d.txt"
    session.commands("clean up", (script,))
    assert not (repo / "src").exists() and (repo / "b.txt").exists()

    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.conflicts == preview.files  # none is surely its
    assert all(plan.unsure and not plan.outside for plan in preview.files)
    with pytest.raises(UndoRefused, match="maybe not by the command"):
        session.checkpoints.undo()
    planned = {plan.path: plan.action for plan in preview.files}
    assert planned == {
        "src/pkg/mod.py": "recreate",
        "src/pic.bin": "recreate",
        "src/notes.md": "recreate",
        "data/seed.csv": "recreate",
        "a.txt": "recreate",
        "b.txt": "delete",
        "c.txt": "restore",
        "d.txt": "restore",
    }
    assert preview.unkept == (UnkeptPath(path="data/cache/", why="ignored", change="deleted"),)
    said = caveats(preview)
    assert said[0] == "not restored, no snapshot keeps them: data/cache/ (ignored, deleted)"
    assert "outside the project's files" in said[-1] and preview.not_undone == ()

    result = session.checkpoints.undo(force=True)
    assert result.failed == ()
    after = tree_of(repo)
    lost = {"data/cache/big.bin"}  # ignored: named above, not restored
    assert after == {rel: data for rel, data in before.items() if rel not in lost}
    assert digest_of(repo / ".git") == git_dir  # the project's repository was never touched


def test_redo_and_a_reopened_session_keep_the_command_and_what_it_could_not_restore(
    session: Session, repo: Path
) -> None:
    session.commands("clean", ("rm -rf data src; rm build.log",))
    gone = tree_of(repo)
    session.checkpoints.undo(force=True)
    assert (repo / "src" / "pic.bin").read_bytes() == BINARY
    assert (repo / "data" / "seed.csv").exists() and not (repo / "build.log").exists()

    reopened = session.reopened()
    redo = reopened.redo_preview()
    assert redo is not None and {u.path for u in redo.unkept} == {"data/cache/", "build.log"}
    reopened.redo()
    assert tree_of(repo) == gone
    undo = reopened.undo_preview()
    assert undo is not None and {u.path for u in undo.unkept} == {"data/cache/", "build.log"}
    reopened.undo(force=True)
    assert (repo / "src" / "pkg" / "mod.py").read_text() == "x = 1\n"


def test_git_checkout_and_git_clean_are_undone_but_for_ignored_files(
    session: Session, repo: Path
) -> None:
    (repo / "src" / "pkg" / "mod.py").write_text("x = 2  # not committed yet\n")
    before = tree_of(repo)
    # `-e .zizou`: the sandbox masks .zizou, so a sandboxed `git clean -x` cannot remove it.
    session.commands("reset everything", ("git checkout -- .", "git clean -fdxq -e .zizou"))
    assert (repo / "src" / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert not (repo / "src" / "notes.md").exists() and not (repo / "build.log").exists()

    preview = session.checkpoints.undo_preview()
    assert preview is not None
    assert {u.path for u in preview.unkept} == {"build.log", "data/cache/"}
    session.checkpoints.undo(force=True)
    lost = {"build.log", "data/cache/big.bin"}
    after = tree_of(repo)
    assert after == {rel: data for rel, data in before.items() if rel not in lost}


def test_a_command_and_a_file_tool_in_one_turn_go_back_to_before_the_turn(
    session: Session, repo: Path
) -> None:
    session.commands("first", ("echo one >> d.txt",))
    session.change("d.txt", b"by the tool\n")  # the same turn's file tool, after the command
    watch = session.checkpoints.before_command("echo two >> d.txt")
    assert watch is not None
    with (repo / "d.txt").open("a") as file:
        file.write("two\n")
    assert watch.finished() is None
    assert (repo / "d.txt").read_bytes() == b"by the tool\ntwo\n"
    session.checkpoints.undo(force=True)
    assert (repo / "d.txt").read_text() == "emptied\n"


def test_a_file_changed_after_the_command_makes_undo_ask(session: Session, repo: Path) -> None:
    session.commands("edit", ("sed -i s/x/z/ c.txt",))
    (repo / "c.txt").write_bytes(b"edited by hand\n")
    with pytest.raises(UndoRefused) as refused:
        session.checkpoints.undo()
    assert [plan.path for plan in refused.value.conflicts] == ["c.txt"]
    session.checkpoints.undo(force=True)
    assert (repo / "c.txt").read_bytes() == CRLF


def test_links_and_a_command_that_changed_nothing(session: Session, repo: Path) -> None:
    (repo / "link").symlink_to("a.txt")
    session.commands("look", ("ls > /dev/null",))
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.files == () and preview.unkept == ()
    assert preview.commands == ("ls > /dev/null",) and preview.not_undone == ()
    session.checkpoints.undo(force=True)

    session.commands("unlink", ("rm link a.txt",))
    preview = session.checkpoints.undo_preview()
    assert preview is not None and [p.path for p in preview.files] == ["a.txt"]
    assert preview.unkept == (UnkeptPath(path="link", why="link", change="deleted"),)
    session.checkpoints.undo(force=True)
    assert (repo / "a.txt").read_text() == "move me\n" and not (repo / "link").exists()


def test_commands_not_watched_or_not_kept_are_said_to_stay(session: Session, repo: Path) -> None:
    session.checkpoints.shadow = None  # `snapshot_commands = false`
    session.commands("off", ("rm a.txt",))
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.files == () and preview.not_undone == ("rm a.txt",)
    assert "commands not undone (their changes stay): rm a.txt" in caveats(preview)
    session.checkpoints.undo(force=True)

    session.checkpoints.shadow = ShadowRepo(repo, timeout_s=1e-9)  # git never finishes in time
    session.conversation.add_user("again")
    watch = session.checkpoints.before_command("rm c.txt")
    assert watch is not None and watch.problem is not None and "took over" in watch.problem
    assert watch.finished() is None and watch.finished() is None  # once
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.not_undone[0].startswith("rm c.txt (the snapshot")


def test_a_nested_repository_without_a_commit_does_not_stop_the_snapshot(
    session: Session, repo: Path
) -> None:
    (repo / "vendor" / "lib").mkdir(parents=True)
    git(repo / "vendor" / "lib", "init", "-q")
    (repo / "vendor" / "lib" / "f.py").write_text("inside\n")
    session.commands("delete", ("rm a.txt",))
    session.checkpoints.undo(force=True)
    assert (repo / "a.txt").read_text() == "move me\n"
    assert (repo / SHADOW_DIR / "index").is_file()


def test_many_files_are_undone_and_redone_in_one_batch(session: Session) -> None:
    root = session.root
    (root / "gen").mkdir()
    for n in range(60):  # more than undo writes one by one, synced each
        (root / "gen" / f"f{n}.txt").write_bytes(bytes([n]) * (n + 1))
    before = tree_of(root)
    session.commands("regenerate", ("rm -rf gen && mkdir gen && echo new > gen/only.txt",))
    assert session.checkpoints.undo(force=True).failed == ()
    assert tree_of(root) == before
    reopened = session.reopened()
    assert reopened.redo().failed == ()
    assert sorted(p.name for p in (root / "gen").iterdir()) == ["only.txt"]
    assert reopened.undo(force=True).failed == ()
    assert tree_of(root) == before


def test_files_a_command_un_ignored_are_not_taken_for_new_ones(
    session: Session, repo: Path
) -> None:
    """The command deletes .gitignore: the ignored files now show in the snapshot after it,
    but they were there before; undo brings .gitignore back and leaves them be."""
    session.commands("drop the ignore rules", ("rm .gitignore",))
    preview = session.checkpoints.undo_preview()
    assert preview is not None
    assert [(plan.path, plan.action) for plan in preview.files] == [(".gitignore", "recreate")]
    assert preview.unkept == ()
    session.checkpoints.undo(force=True)
    assert (repo / "build.log").read_text() == "ignored\n"
    assert (repo / "data" / "cache" / "big.bin").read_bytes() == BINARY
