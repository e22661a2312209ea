"""The user's saved "always allow" command rules, per project, kept in the user's config dir.

When the user answers a command's approval with "always", the TUI saves the rule here, and the
launcher loads the project's saved rules into `Rules.bash_prefixes` at start-up, so a rule
outlives the session but applies to that project only. All projects share one file,
`<user config dir>/permissions.json`, keyed by each project's real path:

    {"version": 2, "projects": {"/home/me/src/app": {"bash_prefixes": ["pytest"],
                                                     "tools": ["mcp__git__git_status"]}}}

(`tools`: the MCP tools the user always allows in that project.)

written atomically and private (0600). Nothing inside the project is ever read: a cloned
repository could ship a `.zizou/permissions.json` that pre-approves its own commands (older
zizou versions kept rules there), so such a file is ignored, and `ignored_project_file` gives
the launcher the words to say so.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from zizou.errors import UsageError
from zizou.paths import PROJECT_DIR_NAME
from zizou.user_dirs import user_config_dir

FILE_NAME = "permissions.json"
IGNORED_PROJECT_FILE = f"{PROJECT_DIR_NAME}/{FILE_NAME}"


class _ProjectRules(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bash_prefixes: list[str] = []
    tools: list[str] = []  # MCP tool rules: `mcp__git__git_status`, `mcp__git__*`

    def empty(self) -> bool:
        return not self.bash_prefixes and not self.tools


class _RulesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: Literal[2] = 2
    projects: dict[str, _ProjectRules] = {}


def rules_path(root: Path | None = None) -> Path:
    """The file holding every project's rules (the same for any `root`)."""
    return user_config_dir() / FILE_NAME


def project_key(root: Path) -> str:
    """The project's real path, the key its rules are saved under."""
    return str(Path(os.path.realpath(root)))


def load_prefixes(root: Path) -> list[str]:
    """The command prefixes saved for the project at `root`; none when nothing was saved."""
    return _load(root, "bash_prefixes")


def save_prefix(root: Path, prefix: str) -> bool:
    """Add `prefix` to the project's saved rules; False when it was already there."""
    return _save(root, "bash_prefixes", prefix)


def remove_prefix(root: Path, prefix: str) -> bool:
    """Remove `prefix` from the project's saved rules; False when it was not saved."""
    return _remove(root, "bash_prefixes", prefix)


def load_tool_rules(root: Path) -> list[str]:
    """The MCP tool rules saved for the project at `root`."""
    return _load(root, "tools")


def save_tool_rule(root: Path, rule: str) -> bool:
    """Always allow the MCP tool `rule` in the project; False when it was saved already."""
    return _save(root, "tools", rule)


def remove_tool_rule(root: Path, rule: str) -> bool:
    """Forget the MCP tool `rule` of the project; False when it was not saved."""
    return _remove(root, "tools", rule)


_Kind = Literal["bash_prefixes", "tools"]


def _load(root: Path, kind: _Kind) -> list[str]:
    saved = _read().projects.get(project_key(root))
    return list(getattr(saved, kind)) if saved is not None else []


def _save(root: Path, kind: _Kind, rule: str) -> bool:
    rules = _read()
    saved: list[str] = getattr(rules.projects.setdefault(project_key(root), _ProjectRules()), kind)
    if rule in saved:
        return False
    saved.append(rule)
    _write(rules)
    return True


def _remove(root: Path, kind: _Kind, rule: str) -> bool:
    rules = _read()
    project = rules.projects.get(project_key(root))
    if project is None or rule not in getattr(project, kind):
        return False
    getattr(project, kind).remove(rule)
    if project.empty():
        del rules.projects[project_key(root)]
    _write(rules)
    return True


def ignored_project_file(root: Path) -> str | None:
    """A warning when the project holds a `.zizou/permissions.json`, which is never read."""
    if not os.path.lexists(root / IGNORED_PROJECT_FILE):
        return None
    return (
        f"{IGNORED_PROJECT_FILE} in this project is ignored: a repository must not approve its "
        f"own commands. Rules you save with `a` (always) are kept in {rules_path()}."
    )


def _read() -> _RulesFile:
    path = rules_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _RulesFile()
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}; fix or remove the file") from exc
    try:
        return _RulesFile.model_validate(data)
    except ValidationError as exc:
        raise UsageError(f"{path} is not a valid rules file ({exc}); fix or remove it") from exc


def _write(rules: _RulesFile) -> None:
    path = rules_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    data = rules.model_dump()
    for project in data["projects"].values():
        if not project["tools"]:  # a file without MCP rules reads as it always did
            del project["tools"]
    text = json.dumps(data, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".permissions-", suffix=".tmp", dir=path.parent)  # 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = [
    "ignored_project_file",
    "load_prefixes",
    "load_tool_rules",
    "project_key",
    "remove_prefix",
    "remove_tool_rule",
    "rules_path",
    "save_prefix",
    "save_tool_rule",
]
