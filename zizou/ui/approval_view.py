"""What the approval dialog shows for a permission request: pure, so it is table-tested.

A command is shown exactly, with every control or invisible character spelled out, beside its
working directory and timeout, and the start of the input it is given, if any; a protected
write shows the diff or the content it would write.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from zizou.contracts.protocols import PermissionRequest
from zizou.ui.text import escape_controls, parse_arguments

DEFAULT_TIMEOUT_S = 120


@dataclass(frozen=True)
class ApprovalView:
    title: str
    subject: str  # the exact command or path, controls escaped
    where: str  # the working directory and timeout, or the tool
    body: str | None  # a diff or the content for writes; the raw detail otherwise
    body_is_diff: bool
    always: str | None  # what "always allow" does, or None when it is not offered
    network: str | None = None  # what "allow once with network" does, when offered
    no_always: str | None = None  # why "always allow" is not offered, when it is not


def approval_view(request: PermissionRequest, cwd: Path, *, existing: bool = False) -> ApprovalView:
    """`existing`: the file a write gives whole content to is there already (the dialog looks),
    so the view says the write replaces it."""
    detail = parse_arguments(request.detail or "") if request.detail else None
    if request.kind == "exec":
        return ApprovalView(
            title="Run this command?" + (" (it touches a protected path)" * request.protected),
            subject=escape_controls(request.summary),
            where=f"in {cwd} · {_how_long(detail or {})}",
            body=_stdin_body(detail),
            body_is_diff=False,
            always=_always(request),
            network=(
                "allow once, with the network (the sandbox stays on otherwise)"
                if request.network_choice
                else None
            ),
            no_always=_no_always(request),
        )
    if request.kind == "mcp":
        return _mcp_view(request, detail)
    replaces = existing and isinstance((detail or {}).get("content"), str)
    body, is_diff = _write_body(detail, request.detail, replaces)
    verb = "Write to a protected path?" if request.protected else f"Allow {request.tool}?"
    if request.protected and replaces:
        verb = "Replace a protected file? (its whole content goes)"
    if request.protected and request.kind == "delete":
        verb = "Delete a protected file?"
    if request.kind == "commit":
        verb = "Commit this to git?"
    return ApprovalView(
        title=verb,
        subject=escape_controls(request.summary),
        where=(
            f"{request.tool} in {cwd}"
            if request.kind in ("read", "write")
            else f"{request.tool}: {escape_controls(request.reason, keep_newlines=False)}"
        ),
        body=body,
        body_is_diff=is_diff,
        always=_always(request),
        no_always=_no_always(request),
    )


HINTS = {
    True: "the server says this tool only reads (readOnlyHint): zizou does not rely on it",
    False: "the server says this tool may change things (readOnlyHint false)",
}


def _mcp_view(request: PermissionRequest, detail: dict[str, object] | None) -> ApprovalView:
    """An MCP tool's call: the server and its own name for the tool, what the server says of
    it, and the arguments in full."""
    detail = detail or {}
    server, tool = detail.get("server", "?"), detail.get("tool", request.tool)
    hint = detail.get("read_only_hint")
    said = HINTS[hint] if isinstance(hint, bool) else "the server says nothing of what it does"
    arguments = json.dumps(detail.get("arguments", {}), indent=2, ensure_ascii=False)
    return ApprovalView(
        title="Call this MCP tool?",
        subject=escape_controls(request.summary),
        where=escape_controls(f"the tool {tool} of the MCP server {server} · {said}"),
        body=escape_controls(f"arguments:\n{arguments}"),
        body_is_diff=False,
        always=_always(request),
        no_always=_no_always(request),
    )


def _how_long(detail: dict[str, object]) -> str:
    """How long the command may run: its timeout, or in the background until it ends."""
    timeout = detail.get("timeout_s")
    if detail.get("background") is True:
        ends = f"killed at {timeout} s" if timeout is not None else "until it ends or is killed"
        return f"in the background ({ends})"
    return f"timeout {timeout if timeout is not None else DEFAULT_TIMEOUT_S} s"


def _always(request: PermissionRequest) -> str | None:
    if request.protected:
        return None
    if request.kind == "exec":
        if not request.suggested_rules:
            return None
        rules = _names([escape_controls(r, keep_newlines=False) for r in request.suggested_rules])
        saved = f"always allow {rules} in this project (saved in your zizou config dir)"
        if request.rule_scope:
            return f"{saved}: permits {escape_controls(request.rule_scope, keep_newlines=False)}"
        return saved
    if request.kind == "mcp":
        return f"always allow {request.tool} in this project (saved in your zizou config dir)"
    return f"always allow {request.tool} for this session"


def _no_always(request: PermissionRequest) -> str | None:
    if _always(request) is not None or not request.reason:
        return None
    return f"always allow is not offered: {escape_controls(request.reason, keep_newlines=False)}"


def _stdin_body(detail: dict[str, object] | None) -> str | None:
    """The input a command would read, as far as the request carries it."""
    stdin = (detail or {}).get("stdin")
    if not isinstance(stdin, str):
        return None
    size = (detail or {}).get("stdin_bytes")
    shown = f"stdin ({size:,} bytes):" if isinstance(size, int) else "stdin:"
    more = "\n[...]" if isinstance(size, int) and size > len(stdin.encode(errors="replace")) else ""
    return f"{shown}\n{escape_controls(stdin)}{more}"


def _names(rules: list[str]) -> str:
    """`a`; `a` and `b`; `a`, `b` and `c`."""
    quoted = [f"`{rule}`" for rule in rules]
    if len(quoted) == 1:
        return quoted[0]
    return f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def _edit_hunk(edit: dict[str, object], title: str) -> str | None:
    """One edit as a hunk: the old lines, then the new; None when it is not an edit."""
    old, new = edit.get("old_string"), edit.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    every = " (every occurrence)" if edit.get("replace_all") else ""
    lines = [f"-{line}" for line in old.split("\n")] + [f"+{line}" for line in new.split("\n")]
    return "\n".join([f"@@ {title}{every} @@", *lines])


def _write_body(
    detail: dict[str, object] | None, raw: str | None, replaces: bool = False
) -> tuple[str | None, bool]:
    if detail is None:
        return (escape_controls(raw), False) if raw else (None, False)
    edits = detail.get("edits")
    if isinstance(edits, list) and all(isinstance(e, dict) for e in edits):  # edit_file's `edits`
        hunks = [_edit_hunk(e, f"edit {n} of {len(edits)}") for n, e in enumerate(edits, 1)]
        if all(hunk is not None for hunk in hunks):
            return escape_controls("\n".join(h for h in hunks if h)), True
    if (hunk := _edit_hunk(detail, "edit")) is not None:
        return escape_controls(hunk), True
    if isinstance(detail.get("content"), str):
        lines = [f"+{line}" for line in str(detail["content"]).split("\n")]
        heading = "@@ replaces the existing file with @@" if replaces else "@@ new content @@"
        return escape_controls("\n".join([heading, *lines])), True
    return escape_controls(json.dumps(detail, indent=2)), False


__all__ = ["ApprovalView", "approval_view"]
