"""What keeping a command's files for undo costs, on a large tree.

The tree: 11,000 files in 550 directories (46 MB of source-like text), a git repository with
its files committed, 200 untracked files and 200 ignored ones (or `--tree DIR`: a copy of a real
project). zizou snapshots the project before each command and after it (a shadow git repository
under .zizou/checkpoints/snapshots.git):

1. A snapshot of the tree: the first one in a project (cold: every file hashed) and one of the
   unchanged tree (warm). Target: warm <= 150 ms.
2. A whole command that changed nothing: the snapshot before it, and keeping what it changed
   after it (the snapshot after, the diff, the records).
3. Commands that changed the tree: `sed -i` on 100 files, `rm` of 1,000 files, and `rm -rf` of
   everything: the cost after the command (snapshot, diff, blobs kept, the session lines), then
   what `undo` of that turn takes to put every file back (each checked byte for byte).

Prints the best and the median of N runs where a step repeats.

    .venv/bin/python bench/snapshots.py [--runs 9] [--tree DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from zizou.checkpoints import Checkpoints
from zizou.checkpoints.shadow import SHADOW_DIR, ShadowRepo
from zizou.contracts.conversation import Conversation
from zizou.sessions import SessionStore
from zizou.skipped_dirs import SKIPPED_DIRS

TARGET_WARM_MS = 150.0
DIRS, PER_DIR = 550, 20


def make_tree(root: Path) -> None:
    """11,000 committed files, 200 untracked and 200 ignored ones."""
    rng = random.Random(7)
    for d in range(DIRS):
        where = root / f"pkg{d % 20}" / f"mod{d}"
        where.mkdir(parents=True)
        for f in range(PER_DIR):
            line = f"value_{f} = compute({rng.randint(0, 10**9)})  # x\n"
            (where / f"file{f}.py").write_text(line * rng.randint(20, 120))
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "tree")
    for n in range(200):
        (root / f"pkg{n % 20}" / f"draft{n}.txt").write_text(f"untracked {n}\n")
        (root / f"pkg{n % 20}" / f"run{n}.log").write_text(f"ignored {n}\n")


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def count_files(root: Path) -> int:
    """The project's files, its `.git` left out."""
    found = 0
    for _, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name not in (".git", ".zizou")]
        found += len(files)
    return found


def timed(step: Callable[[], object]) -> float:
    started = time.perf_counter()
    step()
    return (time.perf_counter() - started) * 1000


def session(root: Path) -> tuple[Checkpoints, Conversation]:
    writer = SessionStore(root).create("bench", "m")
    conversation = Conversation(on_append=writer.append_message)
    return Checkpoints(root, "bench", conversation, writer), conversation


def changed_tree(root: Path, name: str, command: str) -> None:
    """One turn running `command`: the cost after it, then undo's, every file the preview
    planned checked byte for byte (its hash) afterwards."""
    checkpoints, conversation = session(root)
    checkpoints.begin_turn(name, [])
    conversation.add_user(name)
    watch = checkpoints.before_command(command)
    assert watch is not None and watch.problem is None, watch and watch.problem
    subprocess.run(["bash", "-c", command], cwd=root, check=True)
    after_ms = timed(watch.finished)
    conversation.add_assistant("done")
    preview = checkpoints.undo_preview()
    assert preview is not None and preview.conflicts == ()
    undo_ms = timed(checkpoints.undo)
    for plan in preview.files:
        path = root / plan.path
        now = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
        assert now == plan.target, f"{name}: undo did not put {plan.path} back"
    assert checkpoints.writer is not None
    checkpoints.writer.close()
    took = f"after the command {after_ms:>6.0f} ms   undo {undo_ms:>6.0f} ms"
    print(f"  {name:<26} {len(preview.files):>6} files   {took}")


def kept_files(root: Path) -> list[str]:
    """The files a snapshot keeps (git's view: the ignored ones and the skipped dirs left
    out), sorted."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    )
    names = listed.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted(n for n in names if n and not SKIPPED_DIRS.intersection(n.split("/")[:-1]))


def in_list(tmp: Path, name: str, paths: list[str]) -> str:
    """A file listing `paths` (NUL-separated), for `xargs -0 -a`."""
    where = tmp / name
    where.write_bytes(b"".join(path.encode() + b"\0" for path in paths))
    return str(where)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tree", type=Path, help="a real project to copy and measure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        if args.tree:
            shutil.copytree(args.tree, root, symlinks=True, ignore=shutil.ignore_patterns(".zizou"))
            if not (root / ".git").exists():
                git(root, "init", "-q")  # its files untracked: what the bench picks from
        else:
            make_tree(root)
        where = f"a copy of {args.tree}" if args.tree else "generated"
        print(f"tree: {count_files(root):,} files ({where})")

        shadow = ShadowRepo(root)
        cold = timed(shadow.snapshot)
        warm = [timed(ShadowRepo(root).snapshot) for _ in range(args.runs)]
        size = sum(p.stat().st_size for p in (root / SHADOW_DIR).rglob("*") if p.is_file())
        best, median = min(warm), statistics.median(warm)
        verdict = "ok" if median <= TARGET_WARM_MS else "OVER TARGET"
        print("1. snapshot")
        print(f"  cold (first in the project)        {cold:>7.0f} ms   store {size / 1e6:.0f} MB")
        print(
            f"  warm, unchanged tree               best {best:.0f} ms, median {median:.0f} ms"
            f"   target <= {TARGET_WARM_MS:.0f} ms: {verdict}"
        )

        checkpoints, conversation = session(root)
        checkpoints.begin_turn("nothing", [])
        conversation.add_user("nothing")
        befores, afters = [], []
        for _ in range(args.runs):
            started = time.perf_counter()
            watch = checkpoints.before_command("true")
            befores.append((time.perf_counter() - started) * 1000)
            assert watch is not None
            afters.append(timed(watch.finished))
        assert checkpoints.writer is not None
        checkpoints.writer.close()
        print("2. a command that changed nothing")
        print(
            f"  before it {statistics.median(befores):.0f} ms, after it "
            f"{statistics.median(afters):.0f} ms (medians)"
        )

        print("3. commands that changed the tree")
        files = kept_files(root)
        texts = [name for name in files if name.endswith((".py", ".txt", ".md"))][::7][:100]
        sed = f"xargs -0 -a {in_list(Path(tmp), 'sed', texts)} sed -i s/e/E/"
        changed_tree(root, f"sed -i on {len(texts)} files", sed)
        doomed = files[:: max(1, len(files) // 1000)][:1000]
        changed_tree(
            root, "rm of 1,000 files", f"xargs -0 -a {in_list(Path(tmp), 'rm', doomed)} rm -f"
        )
        every = "find . -mindepth 1 -maxdepth 1 ! -name .git ! -name .zizou -exec rm -rf {} +"
        changed_tree(root, "rm -rf of every file", every)


if __name__ == "__main__":
    main()
