"""Claude Code's permission rules (`permissions.allow`, `ask`, `deny` of its settings files),
mapped onto zizou's tools.

`deny` and `ask` rules only tighten, so they are taken from every settings file, the project's
included: they become a built-in hook's `before_tool` policy, which runs after zizou's own rules
(a call zizou refuses stays refused; `ask` asks even under `--yes`, and is refused headless).
`allow` rules approve, so they are taken only from the files the user writes
(`~/.claude/settings.json`, `.claude/settings.local.json`): a cloned repository's
`.claude/settings.json` can never pre-approve anything. A rule zizou cannot map is named with
the reason, never dropped silently.

A rule is `Tool` or `Tool(specifier)`. `Bash(npm test:*)` is a command prefix, `Bash(git diff)`
one exact command; `Read(./secrets/**)`, `Edit(src/**)`, `Write(*.lock)` are gitignore-style
paths from the project root. `Read` covers every tool that reads files, `Edit` every tool that
changes them; `mcp__SERVER__TOOL` names an MCP tool.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pathspec

from zizou.agent.permissions import MCP_PREFIX, RUN_BASH, Rules, parse_allow_rule
from zizou.config.claude_settings import ClaudeSettings, SettingsFile
from zizou.contracts.protocols import PolicyVerdict
from zizou.contracts.shell_policy import ShellParseError, split_segments
from zizou.hooks.api import ToolCallInfo
from zizou.hooks.runtime import HookSource
from zizou.sandbox import SandboxState
from zizou.tools import BUILTIN_MODULES

RuleKind = Literal["allow", "ask", "deny"]
READ_TOOLS = ("read_file", "grep", "glob", "list_dir", "open_in_workspace")
EDIT_TOOLS = ("edit_file", "write_file", "replace_window", "delete_file")
# Claude Code's tool names in rules -> zizou's tools they cover.
RULE_TOOLS: dict[str, tuple[str, ...]] = {
    "Read": READ_TOOLS,
    "Edit": EDIT_TOOLS,
    "MultiEdit": ("edit_file",),
    "Write": ("write_file",),
    "Glob": ("glob",),
    "Grep": ("grep",),
    "LS": ("list_dir",),
    "Bash": (RUN_BASH,),
}
HOOK_NAME = "settings:permissions"
_WORDS = re.compile(r"[\s;&|()<>`$'\"]+")
# What runs a command inside another: substitutions, and programs that run their arguments.
_NESTED = re.compile(
    r"\$\(|`|<\(|>\(|(?<![\w./-])(?:eval|exec|xargs|env|sudo|nohup|time|timeout|nice|watch"
    r"|sh|bash|zsh|dash)(?![\w.-])"
)
_RULE = re.compile(r"(?P<tool>[A-Za-z_][\w-]*)(?:\((?P<spec>.*)\))?", re.DOTALL)


@dataclass(frozen=True)
class SettingsRule:
    """One mapped rule: the tools it covers, and the commands or paths it narrows them to."""

    text: str  # as written: `Bash(rm:*)`
    source: str  # the settings file: `.claude/settings.json`
    kind: RuleKind
    tools: tuple[str, ...]
    command: tuple[str, ...] | None = None  # a command's first words
    exact: bool = False  # the command is exactly `command`, not a prefix
    paths: pathspec.GitIgnoreSpec | None = None

    @property
    def named(self) -> str:
        return f"{self.kind} rule {self.text} of {self.source}"

    def matches(self, call: ToolCallInfo, root: Path) -> bool:
        if not any(_tool_matches(call.name, tool) for tool in self.tools):
            return False
        if self.command is not None:
            return _command_matches(str(call.arguments.get("command", "")), self)
        if self.paths is not None:
            return _path_matches(call.arguments.get("path"), self.paths, root)
        return True


@dataclass
class SettingsRules:
    """The rules of the settings files: those that tighten, those that approve, and what was
    not taken, in words."""

    root: Path
    tightening: list[SettingsRule] = field(default_factory=list)
    allow_prefixes: list[str] = field(default_factory=list)
    allow_tools: list[str] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)  # "deny Read(./secrets/**) (.claude/...)"
    warnings: list[str] = field(default_factory=list)

    def verdict(self, call: ToolCallInfo) -> PolicyVerdict | None:
        """The first `deny` rule that matches the call, else the first `ask`, else None."""
        asked: PolicyVerdict | None = None
        for rule in self.tightening:
            if not rule.matches(call, self.root):
                continue
            if rule.kind == "deny":
                return PolicyVerdict("deny", f"refused by the {rule.named}", HOOK_NAME)
            asked = asked or PolicyVerdict("ask", f"the {rule.named} asks first", HOOK_NAME)
        return asked

    def widen(self, rules: Rules) -> Rules:
        """`rules` with the user's own `allow` rules added."""
        prefixes = [p for p in self.allow_prefixes if p not in rules.bash_prefixes]
        return dataclasses.replace(
            rules,
            bash_prefixes=(*rules.bash_prefixes, *prefixes),
            allowed_tools=rules.allowed_tools | frozenset(self.allow_tools),
        )

    def hook(self) -> HookSource:
        """The `deny` and `ask` rules as a built-in hook: a `before_tool` policy."""

        def render(p: Any) -> None:
            p.before_tool(lambda call, ctx: self.verdict(call))

        return HookSource(HOOK_NAME, "builtin", "python", render=render)


def settings_rules(settings: ClaudeSettings, root: Path, sandbox: SandboxState) -> SettingsRules:
    """Every permission rule of `settings`, mapped, or named with why it is not."""
    found = SettingsRules(Path(os.path.realpath(root)))
    for file in settings.files:
        permissions = file.data.get("permissions")
        if permissions is None:
            continue
        if not isinstance(permissions, Mapping):
            found.warnings.append(f"{file.label}: `permissions` is not an object; not used")
            continue
        for kind in ("deny", "ask", "allow"):
            texts = permissions.get(kind, [])
            if not isinstance(texts, list):
                found.warnings.append(f"{file.label}: permissions.{kind} is not a list; not used")
                continue
            for text in texts:
                _take(found, file, kind, text, sandbox)
    return found


def _take(
    found: SettingsRules, file: SettingsFile, kind: RuleKind, text: object, sandbox: SandboxState
) -> None:
    shown = f"{kind} {text} ({file.label})"
    if kind == "allow" and not file.users_own:
        found.warnings.append(
            f"{file.label}: the allow rule {text} approves nothing: a repository cannot "
            "pre-approve; put it in .claude/settings.local.json or ~/.claude/settings.json"
        )
        return
    try:
        rule = parse_rule(str(text) if isinstance(text, str) else "", file.label, kind)
        if kind == "allow":
            _allow(found, rule, sandbox)
        else:
            found.tightening.append(rule)
    except ValueError as why:
        found.warnings.append(f"{file.label}: the {kind} rule {text} is not used: {why}")
        return
    found.taken.append(shown)


def parse_rule(text: str, source: str, kind: RuleKind) -> SettingsRule:
    """`text` mapped onto zizou's tools; a ValueError says why it cannot be."""
    match = _RULE.fullmatch(text.strip())
    if match is None:
        raise ValueError("it is not `Tool` or `Tool(specifier)`")
    tool, spec = match["tool"], match["spec"]
    if tool.startswith(MCP_PREFIX):
        if spec is not None:
            raise ValueError("an MCP tool rule takes no specifier")
        name = tool if "__" in tool.removeprefix(MCP_PREFIX) else f"{tool}__*"
        return SettingsRule(text, source, kind, (name,))
    tools = RULE_TOOLS.get(tool)
    if tools is None:
        raise ValueError(f"zizou has no tool like {tool}")
    if spec is None or spec.strip() in ("", "*", "**"):
        return SettingsRule(text, source, kind, tools)
    if tool == "Bash":
        return _bash_rule(text, source, kind, spec)
    return SettingsRule(text, source, kind, tools, paths=_path_spec(spec))


def _bash_rule(text: str, source: str, kind: RuleKind, spec: str) -> SettingsRule:
    stripped = spec.strip()
    prefix = stripped.endswith((":*", " *"))
    words = stripped[:-2].strip() if prefix else stripped
    try:
        segments = split_segments(words)
    except ShellParseError as err:
        raise ValueError(f"its command cannot be read ({err})") from err
    if len(segments) != 1 or not segments[0]:
        raise ValueError("it names more than one command")
    return SettingsRule(
        text, source, kind, (RUN_BASH,), command=tuple(segments[0]), exact=not prefix
    )


def _path_spec(spec: str) -> pathspec.GitIgnoreSpec:
    pattern = spec.strip()
    if pattern.startswith(("//", "~")):
        raise ValueError(
            "it names files outside the project, which zizou's tools never reach: it holds already"
        )
    if pattern.startswith("./"):
        pattern = "/" + pattern[2:]
    return pathspec.GitIgnoreSpec.from_lines([pattern])


def _allow(found: SettingsRules, rule: SettingsRule, sandbox: SandboxState) -> None:
    if rule.paths is not None:
        raise ValueError(
            "zizou cannot approve a tool for some paths only (reads inside the project never "
            "ask; edits follow --permission-mode)"
        )
    if rule.command is not None:
        if rule.exact:
            raise ValueError(
                "zizou's command rules are prefixes, which would approve more than this one "
                f"command; write Bash({' '.join(rule.command)}:*) to approve the prefix"
            )
        text = f"{RUN_BASH}:{' '.join(rule.command)}"
        _, prefix = parse_allow_rule(text, BUILTIN_MODULES, sandbox)
        found.allow_prefixes.append(prefix or "")
        return
    for tool in rule.tools:
        if not tool.startswith(MCP_PREFIX):
            parse_allow_rule(tool, BUILTIN_MODULES, sandbox)
        found.allow_tools.append(tool)


def _tool_matches(name: str, rule_tool: str) -> bool:
    if rule_tool.startswith(MCP_PREFIX):
        from fnmatch import fnmatchcase

        return fnmatchcase(name, rule_tool)
    return name == rule_tool


def _command_matches(command: str, rule: SettingsRule) -> bool:
    """Whether any simple command of `command` is the rule's (its program named by path or
    not). A command that cannot be split, or that runs commands inside it (`$(...)`, `bash
    -c`, `xargs`...), matches when it names the program anywhere, so a rule fails closed."""
    assert rule.command is not None
    wanted = list(rule.command)
    named = wanted[0] in (posixpath.basename(w) for w in _WORDS.split(command) if w)
    if _NESTED.search(command) and named:
        return True
    try:
        segments = split_segments(command)
    except ShellParseError:
        return named
    for words in segments:
        words = [posixpath.basename(words[0]), *words[1:]] if words else words
        head = words[: len(wanted)]
        if head == wanted and (not rule.exact or len(words) == len(wanted)):
            return True
    return False


def _path_matches(raw: object, spec: pathspec.GitIgnoreSpec, root: Path) -> bool:
    """Whether the call's path, or any file under it (a folder listed or searched), is one
    the rule names."""
    text = str(raw) if isinstance(raw, str) and raw.strip() else "."
    if Path(text).is_absolute():
        text = os.path.relpath(os.path.realpath(text), root)
    rel = posixpath.normpath(text.replace(os.sep, "/"))
    if rel in (".", "") or rel.startswith("../"):
        return False
    return spec.match_file(rel) or spec.match_file(f"{rel}/x")


__all__ = [
    "EDIT_TOOLS",
    "HOOK_NAME",
    "READ_TOOLS",
    "RULE_TOOLS",
    "SettingsRule",
    "SettingsRules",
    "parse_rule",
    "settings_rules",
]
