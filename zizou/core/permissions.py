"""Decide, for one tool call, whether to run it, ask the person, or refuse.

One pure function over the call's `Access` and the session's `Rules`, so the whole policy is
table-tested apart from any front end: the loop turns "ask" into a PermissionRequest, and
headless mode denies whatever would ask unless `--allow` or `--yes` approved it up front.

Decisions worth knowing:
- `--yes` approves every question except protected ones; protected paths always ask.
- A command that names a protected or secret path (`rm -rf .git`, `cat .env`) is protected too,
  so neither `--yes` nor a saved rule runs it unasked. This is a best-effort word scan.
- `--allow run_bash` approves any command without an always-ask reason; prefixes from
  `--allow run_bash:PREFIX` never approve always-ask commands (only `--yes` does).
- `.git` is protected at any depth (a nested repo's hooks and config run code too).
- Patterns match case-insensitively, since macOS file systems usually are.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Literal, assert_never

from zizou.core.shell_policy import (
    ShellParseError,
    always_ask_reason,
    matches_rules,
    rule_tokens,
    suggest_rule,
)
from zizou.secret_files import SECRET_NAME_EXCEPTIONS, SECRET_NAME_GLOBS
from zizou.tools.base import Access

__all__ = [
    "PROTECTED_PATTERNS",
    "SECRET_PATTERNS",
    "Decision",
    "Rules",
    "Verdict",
    "decide",
    "is_protected",
    "is_secret",
    "parse_allow_rule",
    "rules_from_allow",
]

Verdict = Literal["allow", "ask", "deny"]

# `NAME/**` is a top-level directory (and NAME itself), `**/GLOB` a basename anywhere, and
# `**/NAME/**` a directory (or file) of that name at any depth.
PROTECTED_PATTERNS: tuple[str, ...] = ("**/.git/**", ".zizou/**", "**/.env*")
SECRET_PATTERNS: tuple[str, ...] = tuple(f"**/{glob}" for glob in SECRET_NAME_GLOBS)
SECRET_EXCEPTIONS: tuple[str, ...] = tuple(f"**/{name}" for name in SECRET_NAME_EXCEPTIONS)
RUN_BASH = "run_bash"
_WORD_BREAKS = re.compile(r"[\s;&|<>()'\"`$=,:]+")


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    protected: bool = False
    suggested_rule: str | None = None


@dataclass(frozen=True)
class Rules:
    """What the user approved up front (`--allow`, `--yes`) or saved ("always allow")."""

    allowed_tools: frozenset[str] = frozenset()
    bash_prefixes: tuple[str, ...] = ()
    yes: bool = False
    allow_secret_reads: bool = False


def _match(path: str, pattern: str) -> bool:
    parts = [p.casefold() for p in posixpath.normpath(path).split("/") if p not in ("", ".")]
    if not parts:
        return False
    if pattern.startswith("**/") and pattern.endswith("/**"):
        return any(fnmatchcase(part, pattern[3:-3]) for part in parts)
    if pattern.startswith("**/"):
        return fnmatchcase(parts[-1], pattern[3:])
    if pattern.endswith("/**"):
        return fnmatchcase(parts[0], pattern[:-3])
    return fnmatchcase("/".join(parts), pattern)


def _protected_pattern(path: str) -> str | None:
    return next((p for p in PROTECTED_PATTERNS if _match(path, p)), None)


def _secret_pattern(path: str) -> str | None:
    if any(_match(path, p) for p in SECRET_EXCEPTIONS):
        return None
    return next((p for p in SECRET_PATTERNS if _match(path, p)), None)


def is_protected(rel_path: str) -> bool:
    """Writing here always asks: git internals, zizou's own state, env files."""
    return _protected_pattern(rel_path) is not None


def is_secret(rel_path: str) -> bool:
    """Reading this is refused by default: env files and private keys."""
    return _secret_pattern(rel_path) is not None


def decide(tool: str, access: Access, rules: Rules) -> Decision:
    """Allow, ask or deny one call of `tool` that touches `access`."""
    match access.kind:
        case "meta":
            return Decision("allow", "touches no files")
        case "read":
            return _decide_read(access.paths, rules)
        case "write":
            return _decide_write(access.paths)
        case "exec":
            return _decide_exec(tool, access.command or "", rules)
        case "open":
            return _decide_open(tool, access.paths, rules)
        case _:
            assert_never(access.kind)


def _decide_read(paths: Iterable[str], rules: Rules) -> Decision:
    for path in paths:
        pattern = _secret_pattern(path)
        if pattern and not rules.allow_secret_reads:
            return Decision(
                "deny",
                f"`{path}` may hold secrets (it matches `{pattern}`), and zizou does not read "
                "secret files by default; ask the user for the values you need",
            )
    return Decision("allow", "reading inside the project is allowed")


def _decide_write(paths: Iterable[str]) -> Decision:
    for path in paths:
        pattern = _protected_pattern(path)
        if pattern:
            return Decision(
                "ask",
                f"`{path}` is protected (`{pattern}`); writing it always asks",
                protected=True,
            )
    return Decision("allow", "writing inside the project is allowed")


def _decide_open(tool: str, paths: Iterable[str], rules: Rules) -> Decision:
    if tool in rules.allowed_tools:
        return Decision("allow", f"{tool} is allowed by --allow")
    if rules.yes:
        return Decision("allow", "approved by --yes")
    where = " ".join(f"`{p}`" for p in paths) or "a file"
    return Decision("ask", f"opens {where} in its default application, which may run it")


def _decide_exec(tool: str, command: str, rules: Rules) -> Decision:
    sensitive = _sensitive_word(command, rules)
    if sensitive:
        return Decision("ask", sensitive, protected=True)
    reason = always_ask_reason(command)
    if reason and rules.yes:
        return Decision("allow", "approved by --yes")
    if reason:
        return Decision("ask", f"no rule can approve this command: it {reason}")
    if matches_rules(command, rules.bash_prefixes):
        return Decision("allow", "every part of the command matches an always-allow rule")
    if tool in rules.allowed_tools:
        return Decision("allow", f"{tool} is allowed by --allow")
    if rules.yes:
        return Decision("allow", "approved by --yes")
    rule = suggest_rule(command, rules.bash_prefixes)
    return Decision("ask", "runs a shell command", suggested_rule=rule)


def _sensitive_word(command: str, rules: Rules) -> str | None:
    """Why a command naming a protected or secret path must ask, whatever the rules say."""
    for word in _WORD_BREAKS.split(command.replace("\\", "")):
        pattern = _protected_pattern(word)
        if pattern is None and not rules.allow_secret_reads:
            pattern = _secret_pattern(word)
        if pattern:
            return f"the command names `{word}` (`{pattern}`), which always asks"
    return None


def parse_allow_rule(text: str, known_tools: Collection[str]) -> tuple[str, str | None]:
    """Parse one `--allow` value: a tool name, or `run_bash:PREFIX`. Returns (tool, prefix)."""
    forms = (
        f"use a tool name ({', '.join(sorted(known_tools))}) "
        f"or {RUN_BASH}:PREFIX, e.g. --allow '{RUN_BASH}:pytest'"
    )
    tool, sep, prefix = (part.strip() for part in text.partition(":"))
    if tool not in known_tools:
        raise ValueError(f"--allow {text!r}: unknown tool {tool!r}; {forms}")
    if not sep:
        return tool, None
    if tool != RUN_BASH:
        raise ValueError(f"--allow {text!r}: only {RUN_BASH} takes a :PREFIX; {forms}")
    if not prefix:
        raise ValueError(f"--allow {text!r}: the prefix is empty; {forms}")
    try:
        rule_tokens(prefix)
    except ShellParseError as exc:
        raise ValueError(f"--allow {text!r}: {exc}; {forms}") from exc
    return tool, prefix


def rules_from_allow(
    allow: Iterable[str],
    known_tools: Collection[str],
    *,
    yes: bool = False,
    saved_prefixes: Iterable[str] = (),
) -> Rules:
    """The Rules for the `--allow` values, `--yes` and the project's saved prefixes."""
    rules = Rules(bash_prefixes=tuple(saved_prefixes), yes=yes)
    for text in allow:
        tool, prefix = parse_allow_rule(text, known_tools)
        if prefix is None:
            rules = replace(rules, allowed_tools=rules.allowed_tools | {tool})
        else:
            rules = replace(rules, bash_prefixes=(*rules.bash_prefixes, prefix))
    return rules
