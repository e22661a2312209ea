"""Adding and removing servers in a configuration file, as `zizou mcp add` and `remove` do.

The rest of the file is kept as it was (other servers, keys other tools read). The project's
`.mcp.json` is written through `zizou.confined` (never through a symlink the repository put
there); the user's `mcp.json` privately (0600). When the user changes the project's file with
these commands, the new content stays approved if the old one was (or there was none): the
change is theirs. A file they had not approved stays unapproved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zizou import confined
from zizou.errors import PathError, UsageError
from zizou.mcp.config import (
    MAX_CONFIG_BYTES,
    PROJECT_FILE,
    ConfigFile,
    Scope,
    parse,
    read_project,
    read_user,
    user_file,
)
from zizou.mcp.trust import approval, approve
from zizou.paths import write_private


def read_scope(scope: Scope, root: Path, config_dir: Path) -> ConfigFile | None:
    return read_project(root) if scope == "project" else read_user(config_dir)


def _document(found: ConfigFile | None) -> dict[str, Any]:
    if found is None or not found.data:
        return {"mcpServers": {}}
    try:
        document = json.loads(found.data.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as err:
        raise UsageError(f"{found.path} is not JSON ({err}); fix it first") from None
    if not isinstance(document, dict):
        raise UsageError(f"{found.path} is not a JSON object; fix it first")
    if not isinstance(document.get("mcpServers"), dict):
        document["mcpServers"] = {}
    return document


def set_server(
    scope: Scope, root: Path, config_dir: Path, name: str, entry: dict[str, Any] | None
) -> Path:
    """Write `entry` as the server `name` (None: remove it) into the scope's file; its path."""
    found = read_scope(scope, root, config_dir)
    if found is not None and found.problems and not found.data:
        raise UsageError(found.problems[0])
    was_approved = found is None or approval(found, config_dir) == "approved"
    document = _document(found)
    if entry is None:
        del document["mcpServers"][name]
    else:
        document["mcpServers"][name] = entry
    data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError("the configuration would be larger than 1 MiB")
    if scope == "project":
        path = confined.real_root(root) / PROJECT_FILE
        try:
            confined.atomic_write(root, PROJECT_FILE, data, new_mode=0o644)
        except PathError as err:
            raise UsageError(f"cannot write {PROJECT_FILE}: {err}") from None
        if was_approved:
            approve(parse(data, path, "project"), config_dir)
        return path
    path = user_file(config_dir)
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_private(path, data, ".mcp-")
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror or err}") from None
    return path


__all__ = ["read_scope", "set_server"]
