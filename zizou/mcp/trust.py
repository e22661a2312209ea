"""A project's `.mcp.json` names programs that would run on the user's machine, and it comes
with the repository: its servers start only once the user approved the file as it is now.

The approval is the hooks' trust (`zizou.hooks.sources.TrustStore`): the file's real path and
the SHA-256 of the bytes read, kept private in the user's config dir. Any change to the file,
one server added or one argument changed, asks again. The user's own `mcp.json` and the files
given with `--mcp-config` need no approval.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from zizou.hooks.sources import HASH_CHARS, TrustStore
from zizou.mcp.config import ConfigFile

Approval = Literal["approved", "unapproved", "changed", "no approval needed"]


def approval(found: ConfigFile, config_dir: Path) -> Approval:
    """Whether the servers of `found` may start."""
    if found.scope != "project":
        return "no approval needed"
    status = TrustStore(config_dir).status_of(str(found.path), found.sha256)
    if status == "trusted":
        return "approved"
    return "changed" if status == "changed" else "unapproved"


def approve(found: ConfigFile, config_dir: Path) -> None:
    """Approve `found` as it was read (its hash); a UsageError when that cannot be saved."""
    if found.scope == "project" and found.sha256:
        TrustStore(config_dir).trust_content(str(found.path), found.sha256)


def describe(found: ConfigFile, state: Approval) -> str:
    """What the user is asked about: the file, whether it changed, and each server's command
    line or URL, exactly as the file says (variables unexpanded)."""
    news = {
        "changed": "CHANGED since you approved it",
        "unapproved": "not approved yet",
    }.get(state, "approved")
    lines = [f"{found.path} ({news}, sha256 {found.sha256[:HASH_CHARS]})"]
    for spec in found.servers:
        lines.append(f"  {spec.name} ({spec.transport}): {spec.describe()}")
        config = spec.config
        names = sorted(getattr(config, "env", {}) or getattr(config, "headers", {}))
        if names:
            lines.append(f"    with {', '.join(names)}")
    lines += [f"  ({problem})" for problem in found.problems]
    return "\n".join(lines)


__all__ = ["Approval", "approval", "approve", "describe"]
