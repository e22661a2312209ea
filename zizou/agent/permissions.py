"""Decide, for one tool call, whether to run it, ask the person, or refuse.

One pure function over the call's `Access` and the session's `Rules`, so the whole policy is
table-tested apart from any front end: the loop turns "ask" into a PermissionRequest, and
headless mode denies whatever would ask unless `--allow` or `--yes` approved it up front.

Decisions worth knowing:
- `--yes` approves every question except protected ones; protected paths always ask.
- Commands are contained by the OS sandbox (zizou/sandbox), not by these rules: the rules only
  decide when to ask. A command that names a protected or secret path (`rm -rf .git`,
  `cat .env`) asks even under `--yes` or a saved rule, but that is a word scan, easily
  defeated (`cat .en?`); the sandbox is what keeps `.git/` and secret files safe.
- Without a sandbox (none could be had here), every command asks (but one that only reads the
  project) and no rule applies; `--yes` still approves. With the sandbox turned off by the
  user, only rules for programs that their arguments cannot widen (`ls`, `cat`, ... see
  shell_policy) apply.
- `--allow run_bash` approves any command without an always-ask reason, with the sandbox on;
  prefixes from `--allow run_bash:PREFIX` never approve always-ask commands (only `--yes`).
- A chained command needs a rule for every segment, so "always" offers one prefix for each
  segment not yet covered, or none at all when one of them cannot have a rule.
- A decision says what made it (`by`, and the rules that matched) for the audit trail.
- A delete asks unless `--allow delete_file` or `--yes` approved it; deleting a protected or
  secret file asks even then.
- A command that only reads the project (tools/read_only_command.py decides, with the root in
  hand, and says so in `Access.read_only`) never asks, sandbox or not; naming a protected or
  secret path still asks.
- Stopping a job (`job_kill`) never asks: it ends only a command zizou started, which was
  approved (or allowed) as it started.
- `.git` is protected at any depth (a nested repo's hooks and config run code too).
- A call to an MCP server's tool (`mcp__SERVER__TOOL`) asks unless `--allow`, a saved rule or
  `--yes` approved it: rules name the tool (`mcp__git__git_status`), every tool of a server
  (`mcp__git__*`, or `mcp__git` as Claude Code writes it), or a glob of them. What the
  server says of its tool (`readOnlyHint`) is shown, never trusted.
- Patterns match case-insensitively, since macOS file systems usually are.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Literal, assert_never

from zizou.contracts.shell_policy import (
    ShellParseError,
    always_ask_reason,
    covering_rules,
    rule_tokens,
    suggest_rules,
    widenable_program,
)
from zizou.sandbox import SandboxState
from zizou.secret_files import SECRET_NAME_EXCEPTIONS, SECRET_NAME_GLOBS
from zizou.tools.base import Access

__all__ = [
    "AUTO_REASON",
    "MCP_PREFIX",
    "PERMISSION_MODES",
    "PROTECTED_PATTERNS",
    "READ_ONLY_REASON",
    "RUN_BASH",
    "SECRET_PATTERNS",
    "Decision",
    "PermissionMode",
    "Rules",
    "Verdict",
    "decide",
    "is_protected",
    "is_secret",
    "parse_allow_rule",
    "rule_scope",
    "rules_from_allow",
    "tool_rule_matches",
    "usable_prefixes",
]

Verdict = Literal["allow", "ask", "deny"]
# How much asks: "ask" (edits and commands), "accept-edits" (commands; edits inside the project
# go ahead), "auto" (only what leaves the sandbox: any command the sandbox holds runs).
PermissionMode = Literal["ask", "accept-edits", "auto"]
PERMISSION_MODES: tuple[PermissionMode, ...] = ("ask", "accept-edits", "auto")

# `NAME/**` is a top-level directory (and NAME itself), `**/GLOB` a basename anywhere, and
# `**/NAME/**` a directory (or file) of that name at any depth.
PROTECTED_PATTERNS: tuple[str, ...] = ("**/.git/**", ".zizou/**", "**/.env*")
SECRET_PATTERNS: tuple[str, ...] = tuple(f"**/{glob}" for glob in SECRET_NAME_GLOBS)
SECRET_EXCEPTIONS: tuple[str, ...] = tuple(f"**/{name}" for name in SECRET_NAME_EXCEPTIONS)
RUN_BASH = "run_bash"
READ_ONLY_REASON = "it only reads files of the project, so it never asks"
AUTO_REASON = "auto mode: it runs in the sandbox (no network, .git/ and secret files out of reach)"
_WORD_BREAKS = re.compile(r"[\s;&|<>()'\"`$=,:]+")


@dataclass(frozen=True)
class Decision:
    verdict: Verdict
    reason: str
    protected: bool = False
    # What "always allow" would save for a command: one prefix per segment no rule covers yet;
    # empty when no rule can approve it (the reason says why).
    suggested_rules: tuple[str, ...] = ()
    rule_scope: str | None = None  # what the suggested rules would permit, in words
    # What allowed or denied the call without asking: "policy", "--yes", "--allow",
    # "saved rule" (or "--allow and saved rule"), and the rules that matched, as
    # `run_bash:PREFIX` or a tool name.
    by: str = "policy"
    rules: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rules:
    """What the user approved up front (`--allow`, `--yes`) or saved ("always allow"), and
    whether commands run in the sandbox, which decides how far a rule may reach."""

    allowed_tools: frozenset[str] = frozenset()  # names, and `mcp__...` globs
    saved_tools: tuple[str, ...] = ()  # MCP tool rules saved for the project ("always")
    bash_prefixes: tuple[str, ...] = ()
    flag_prefixes: tuple[str, ...] = ()  # those of bash_prefixes given as --allow (not saved)
    yes: bool = False
    allow_secret_reads: bool = False
    sandbox: SandboxState = "on"
    permission_mode: PermissionMode = "accept-edits"


_YES = Decision("allow", "approved by --yes", by="--yes")


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
    """Allow, ask or deny one call of `tool`, by what it touches (`access`), never by its name."""
    match access.kind:
        case "read":
            return _decide_read(access.paths, rules)
        case "write":
            return _decide_write(tool, access.paths, rules)
        case "delete":
            return _decide_delete(tool, access.paths, rules)
        case "exec":
            return _decide_exec(tool, access.command or "", rules, access.read_only)
        case "job":
            return Decision("allow", "it acts only on a job zizou started, which was approved")
        case "mcp":
            return _decide_mcp(tool, rules)
        case "commit":
            return _decide_commit(tool, rules)
        case "open" | "network" | "undeclared":
            return _decide_asked(tool, access, rules)
        case _:
            assert_never(access.kind)


def _decide_commit(tool: str, rules: Rules) -> Decision:
    """A commit writes `.git/`, which is protected: only `--allow git_commit` approves it up
    front, never `--yes` or a saved rule; otherwise the user approves this very commit."""
    if tool in rules.allowed_tools:
        return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(tool,))
    return Decision(
        "ask", "commits to git: the approval shows the message and the files", protected=True
    )


def _decide_asked(tool: str, access: Access, rules: Rules) -> Decision:
    """A call that asks unless `--allow TOOL` or `--yes` approved it up front."""
    if tool in rules.allowed_tools:
        return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(tool,))
    if rules.yes:
        return _YES
    where = " ".join(f"`{p}`" for p in access.paths) or "a file"
    reasons = {
        "open": f"opens {where} in its default application, which may run it",
        "network": f"{tool} reaches the network",
        "undeclared": f"{tool} does not declare what it touches, so it always asks",
    }
    return Decision("ask", reasons[access.kind])


MCP_PREFIX = "mcp__"
_MCP_RULE = re.compile(r"mcp__[A-Za-z0-9][A-Za-z0-9_-]*?(?:__[A-Za-z0-9_*?\[\]!-]+)?")


def tool_rule_matches(tool: str, rule: str) -> bool:
    """Whether the rule `rule` (a name, or an `mcp__` glob) covers the tool `tool`."""
    if rule == tool:
        return True
    return rule.startswith(MCP_PREFIX) and any(c in rule for c in "*?[") and fnmatchcase(tool, rule)


def _decide_mcp(tool: str, rules: Rules) -> Decision:
    """An MCP tool's call: it asks unless a rule or `--yes` approved it up front."""
    given = next((r for r in sorted(rules.allowed_tools) if tool_rule_matches(tool, r)), None)
    if given is not None:
        return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(given,))
    saved = next((r for r in rules.saved_tools if tool_rule_matches(tool, r)), None)
    if saved is not None:
        return Decision(
            "allow", f"{tool} is allowed by a saved rule", by="saved rule", rules=(saved,)
        )
    if rules.yes:
        return _YES
    server = tool.removeprefix(MCP_PREFIX).split("__", 1)[0]
    return Decision(
        "ask",
        f"{tool} calls a tool of the MCP server {server}, which zizou cannot see into",
        suggested_rules=(tool,),
        rule_scope=f"every call of {tool} in this project",
    )


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


def _decide_write(tool: str, paths: Iterable[str], rules: Rules) -> Decision:
    for path in paths:
        pattern = _protected_pattern(path)
        if pattern:
            return Decision(
                "ask",
                f"`{path}` is protected (`{pattern}`); writing it always asks",
                protected=True,
            )
    if rules.permission_mode == "ask":
        if tool in rules.allowed_tools:
            return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(tool,))
        if rules.yes:
            return _YES
        return Decision("ask", "changes a file, and every edit asks in ask mode")
    return Decision("allow", "writing inside the project is allowed")


def _decide_delete(tool: str, paths: tuple[str, ...], rules: Rules) -> Decision:
    """A delete always asks unless `--allow TOOL` or `--yes` approved it; a protected or
    secret file asks whatever they say (it is often the one copy of a key, and not in git)."""
    for path in paths:
        pattern = _protected_pattern(path) or _secret_pattern(path)
        if pattern:
            return Decision(
                "ask",
                f"`{path}` is protected (`{pattern}`); deleting it always asks",
                protected=True,
            )
    if tool in rules.allowed_tools:
        return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(tool,))
    if rules.yes:
        return _YES
    where = " ".join(f"`{p}`" for p in paths) or "a file"
    return Decision("ask", f"deletes {where} (its bytes are kept in .zizou/trash/)")


def _decide_exec(tool: str, command: str, rules: Rules, read_only: bool = False) -> Decision:
    sensitive = _sensitive_word(command, rules)
    if sensitive:
        return Decision("ask", sensitive, protected=True)
    if rules.permission_mode == "auto" and rules.sandbox == "on":
        return Decision("allow", AUTO_REASON, by="auto mode")
    reason = always_ask_reason(command)
    if reason and rules.yes:
        return _YES
    if reason:
        return Decision("ask", f"no rule can approve this command: it {reason}")
    prefixes = usable_prefixes(rules)  # none without a sandbox
    matched = covering_rules(command, prefixes)
    if matched is not None:
        return _matched(matched, rules)
    if read_only:
        return Decision("allow", READ_ONLY_REASON, by="read-only")
    if rules.permission_mode == "auto" and not rules.yes:
        why = "there is none here" if rules.sandbox == "missing" else "it is off"
        return Decision(
            "ask", f"auto mode runs commands unasked only in the sandbox, and {why}: this asks"
        )
    if rules.sandbox == "missing":
        if rules.yes:
            return Decision(
                "allow", "approved by --yes (no sandbox: it runs unsandboxed)", by="--yes"
            )
        return Decision(
            "ask", "there is no sandbox here, so every command asks but one that only reads"
        )
    if tool in rules.allowed_tools and rules.sandbox == "on":
        return Decision("allow", f"{tool} is allowed by --allow", by="--allow", rules=(tool,))
    if rules.yes:
        return _YES
    suggested = suggest_rules(command, prefixes)
    wide = [p for p in suggested if widenable_program(p)] if rules.sandbox != "on" else []
    if wide:
        programs = " and ".join(dict.fromkeys(f"`{widenable_program(p)}`" for p in wide))
        return Decision(
            "ask",
            f"no rule can approve this command while the sandbox is off: {programs} can run "
            "other programs or write files through its arguments",
        )
    return Decision(
        "ask",
        "runs a shell command",
        suggested_rules=suggested,
        rule_scope=rule_scope(suggested, rules),
    )


def _matched(matched: tuple[str, ...], rules: Rules) -> Decision:
    """An allow by the rules that cover every segment, saying where each came from."""
    origins = dict.fromkeys(
        "--allow" if prefix in rules.flag_prefixes else "saved rule" for prefix in matched
    )
    return Decision(
        "allow",
        "every part of the command matches an always-allow rule",
        by=" and ".join(sorted(origins)),
        rules=tuple(f"{RUN_BASH}:{prefix}" for prefix in matched),
    )


def usable_prefixes(rules: Rules) -> tuple[str, ...]:
    """The saved and `--allow` prefixes that may approve commands as the sandbox stands."""
    if rules.sandbox == "on":
        return rules.bash_prefixes
    if rules.sandbox == "missing":
        return ()
    return tuple(p for p in rules.bash_prefixes if widenable_program(p) is None)


def rule_scope(suggested: tuple[str, ...], rules: Rules) -> str | None:
    """What "always allow" for `suggested` would permit, said plainly for the approval dialog."""
    if not suggested:
        return None
    starts = " or ".join(f"`{rule}`" for rule in suggested)
    if rules.sandbox == "on":
        return (
            f"any command starting with {starts}, sandboxed: it may change project files "
            "but not .git/ or .zizou/, and has no secret files and no network"
        )
    programs = " and ".join(dict.fromkeys(f"`{rule.split()[0]}`" for rule in suggested))
    return (
        f"any command that starts with {starts}, unsandboxed; {programs} cannot run "
        "other programs or write files through its arguments"
    )


def _sensitive_word(command: str, rules: Rules) -> str | None:
    """Why a command naming a protected or secret path must ask, whatever the rules say."""
    for word in _WORD_BREAKS.split(command.replace("\\", "")):
        pattern = _protected_pattern(word)
        if pattern is None and not rules.allow_secret_reads:
            pattern = _secret_pattern(word)
        if pattern:
            return f"the command names `{word}` (`{pattern}`), which always asks"
    return None


def parse_allow_rule(
    text: str, known_tools: Collection[str], sandbox: SandboxState = "on"
) -> tuple[str, str | None]:
    """Parse one `--allow` value: a tool name, or `run_bash:PREFIX`. Returns (tool, prefix).

    A rule that would reach further than it says without the sandbox is refused then."""
    forms = (
        f"use a tool name ({', '.join(sorted(known_tools))}), an MCP tool (mcp__SERVER__TOOL, "
        f"mcp__SERVER__*) or {RUN_BASH}:PREFIX, e.g. --allow '{RUN_BASH}:pytest'"
    )
    if text.strip().startswith(MCP_PREFIX):
        return _mcp_rule(text.strip()), None
    tool, sep, prefix = (part.strip() for part in text.partition(":"))
    if tool not in known_tools:
        raise ValueError(f"--allow {text!r}: unknown tool {tool!r}; {forms}")
    if not sep:
        if tool == RUN_BASH and sandbox != "on":
            raise ValueError(f"--allow {text!r} approves every command; {_NEEDS_SANDBOX[sandbox]}")
        return tool, None
    if tool != RUN_BASH:
        raise ValueError(f"--allow {text!r}: only {RUN_BASH} takes a :PREFIX; {forms}")
    if not prefix:
        raise ValueError(f"--allow {text!r}: the prefix is empty; {forms}")
    try:
        rule_tokens(prefix)
    except ShellParseError as exc:
        raise ValueError(f"--allow {text!r}: {exc}; {forms}") from exc
    program = widenable_program(prefix)
    if sandbox == "missing" or (sandbox == "off" and program is not None):
        what = (
            "no rule applies"
            if sandbox == "missing"
            else f"`{program}` can run other programs or write files through its arguments "
            "or the project's files (conftest.py, a Makefile, git's -c and --output)"
        )
        raise ValueError(f"--allow {text!r}: {what}; {_NEEDS_SANDBOX[sandbox]}")
    return tool, prefix


def _mcp_rule(text: str) -> str:
    """An MCP tool rule as typed: `mcp__SERVER__TOOL`, a glob of tools, or `mcp__SERVER`
    (every tool of the server, kept as `mcp__SERVER__*`)."""
    if _MCP_RULE.fullmatch(text) is None:
        raise ValueError(
            f"--allow {text!r}: an MCP rule is mcp__SERVER__TOOL, mcp__SERVER__* or mcp__SERVER, "
            "e.g. --allow mcp__git__git_status"
        )
    return text if "__" in text.removeprefix(MCP_PREFIX) else f"{text}__*"


_NEEDS_SANDBOX = {
    "on": "",
    "missing": "such a rule is accepted only with the sandbox on, and there is no sandbox here "
    '(install bubblewrap, or set sandbox = "off" in config.toml to run commands unsandboxed '
    "with --yes or one by one)",
    "off": 'such a rule is accepted only with the sandbox on, and sandbox is "off" in '
    "config.toml (or --sandbox off)",
}


def rules_from_allow(
    allow: Iterable[str],
    known_tools: Collection[str],
    *,
    yes: bool = False,
    saved_prefixes: Iterable[str] = (),
    sandbox: SandboxState = "on",
) -> Rules:
    """The Rules for the `--allow` values, `--yes` and the project's saved prefixes."""
    rules = Rules(bash_prefixes=tuple(saved_prefixes), yes=yes, sandbox=sandbox)
    for text in allow:
        tool, prefix = parse_allow_rule(text, known_tools, sandbox)
        if prefix is None:
            rules = replace(rules, allowed_tools=rules.allowed_tools | {tool})
        else:
            rules = replace(
                rules,
                bash_prefixes=(*rules.bash_prefixes, prefix),
                flag_prefixes=(*rules.flag_prefixes, prefix),
            )
    return rules
