"""The git_commit tool: stage and commit, when the user asked for a commit.

The sandbox keeps `.git/` read-only, so a command the model runs cannot commit; this tool does it
outside the sandbox, through zizou's own git (zizou/git.py: the repository found by zizou, the
code-running config switched off, no hooks, no pager, a scrubbed environment), and only once
the user approved this very commit: its message and the files it takes are in the approval, and
no rule but `--allow git_commit` approves it (`--yes` does not: `.git/` is protected). It never
writes the repository's config. A repository that names filter drivers (git-lfs, say) is
refused: zizou runs no filter, so what it staged would not be what git-lfs would store.
"""

from __future__ import annotations

import asyncio

from pydantic import Field

from zizou.git import find_repository, run_git
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

GIT_TIMEOUT_S = 60.0
MAX_LISTED = 30  # files named in the approval


class GitCommitArgs(ToolArgs):
    message: str = Field(min_length=1, description="The commit message: a summary line first.")
    paths: list[str] = Field(
        default_factory=list,
        description="Files or folders to stage and commit; empty: every change in the project.",
    )


class GitCommit(Tool[GitCommitArgs]):
    """Stage and commit changes with a message once the user approves; only when asked to commit.

    git's hooks do not run; it refuses when there is nothing to commit.
    """

    name = "git_commit"
    access_kind = "commit"
    summary = "Stage and commit changes with a message, once the user approves; only when asked."
    Args = GitCommitArgs

    def access(self, args: GitCommitArgs, ctx: ToolContext) -> Access:
        return place_access("commit", ctx, *(args.paths or ["."]))

    def preview(self, args: GitCommitArgs, access: Access, ctx: ToolContext) -> str | None:
        changed = _changes(ctx, access.paths)
        shown = changed[:MAX_LISTED]
        more = f"\n... and {len(changed) - MAX_LISTED} more" if len(changed) > MAX_LISTED else ""
        files = "\n".join(shown) + more if shown else "(nothing to commit)"
        return f"{args.message}\n\nfiles:\n{files}\n\n(the repository's git hooks do not run)"

    async def execute(self, args: GitCommitArgs, access: Access, ctx: ToolContext) -> ToolResult:
        return await asyncio.to_thread(_commit, ctx, args.message, access.paths)


def _changes(ctx: ToolContext, paths: tuple[str, ...]) -> list[str]:
    """`git status --porcelain` lines of what the commit would take."""
    done = run_git(ctx.root, ["status", "--porcelain", "--untracked-files=all", "--", *paths])
    if done is None or done.returncode != 0:
        return []
    return [line for line in done.stdout.decode("utf-8", "replace").splitlines() if line]


def _commit(ctx: ToolContext, message: str, paths: tuple[str, ...]) -> ToolResult:
    root = ctx.root
    if find_repository(root) is None:
        return ToolResult.error("the project is not a git repository; nothing was committed")
    filters = run_git(root, ["config", "--get-regexp", r"^filter\."], reads_contents=False)
    if filters is not None and filters.returncode == 0 and filters.stdout.strip():
        return ToolResult.error(
            "the repository configures filter drivers (git-lfs?), which zizou does not run; "
            "ask the user to commit with `!git commit`"
        )
    if not _changes(ctx, paths):
        return ToolResult.error("there is nothing to commit in " + (" ".join(paths) or "."))
    added = run_git(root, ["add", "-A", "--", *paths], timeout=GIT_TIMEOUT_S)
    if added is None or added.returncode != 0:
        return ToolResult.error(f"git add failed: {_said(added)}")
    done = run_git(root, ["commit", "-q", "-m", message], timeout=GIT_TIMEOUT_S)
    if done is None or done.returncode != 0:
        return ToolResult.error(f"git commit failed: {_said(done)}")
    head = run_git(root, ["log", "-1", "--format=%h %s", "--stat=100"], reads_contents=False)
    summary = head.stdout.decode("utf-8", "replace").strip() if head is not None else ""
    return ToolResult(ok=True, output=f"Committed {summary}")


def _said(done: object) -> str:
    if done is None:
        return "git could not be run"
    stderr = getattr(done, "stderr", b"") or getattr(done, "stdout", b"")
    return stderr.decode("utf-8", "replace").strip() or "no message"


TOOL = GitCommit()

__all__ = ["TOOL", "GitCommit", "GitCommitArgs"]
