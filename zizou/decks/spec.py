"""What a loaded deck is: its name, prompt, schemas, tools, actions and guardrails, checked.

The loader builds these from files; the runner and the main agent read them. Everything here is
frozen: a deck set is loaded once and shared.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

NAME_RE = r"^[A-Za-z0-9_-]{1,64}$"  # an OpenAI tool name: a deck is a tool of its caller
RESERVED_PREFIX = "zizou_"

# The built-in tools' names, as in `zizou.tools.BUILTIN_MODULES` (a test keeps the two equal):
# written out so that loading decks does not import every tool.
BUILTIN_TOOL_NAMES: tuple[str, ...] = (
    "read_file",
    "write_file",
    "edit_file",
    "replace_window",
    "glob",
    "grep",
    "list_dir",
    "open_file",
    "run_bash",
    "job_output",
    "job_kill",
    "read_output",
    "delete_file",
    "git_commit",
    "open_in_workspace",
    "close_in_workspace",
    "update_state",
    "get_instructions",
    "add_context",
    "repo_map",
)
RESERVED_NAMES = frozenset({"return_output", "fail", "call_deck", *BUILTIN_TOOL_NAMES})
DEFAULT_TOOLS: tuple[str, ...] = ("read_file", "glob", "grep", "list_dir", "repo_map")
# A deck's run shows no workspace (its prompt is its own): the workspace tools are not its.
NOT_DECK_TOOLS = frozenset({"add_context", "open_in_workspace", "close_in_workspace"})
DECK_TOOLS: tuple[str, ...] = tuple(n for n in BUILTIN_TOOL_NAMES if n not in NOT_DECK_TOOLS)
# An MCP server's tool (`mcp__git__git_status`) or all of a server's (`mcp__git__*`): a deck
# may list them; they are offered when their server is ready, and asked for like a command.
MCP_TOOL_RE = r"^mcp__[A-Za-z0-9][A-Za-z0-9_-]*__[A-Za-z0-9_*?-]+$"


def uses_tool(tools: tuple[str, ...], name: str) -> bool:
    """Whether a deck that lists `tools` may use the tool `name` (an MCP glob included)."""
    return name in tools or (
        name.startswith("mcp__")
        and any(t.startswith("mcp__") and fnmatchcase(name, t) for t in tools)
    )


READ_ONLY_TOOLS = frozenset(
    {
        *DEFAULT_TOOLS,
        "get_instructions",
        "update_state",
        "job_output",
        "read_output",
    }
)
HARD_MAXIMA: dict[str, float] = {"depth": 8, "passes": 50, "timeout_s": 1800}
STRING_SCHEMA: dict[str, Any] = {"type": "string"}

Origin = Literal["project", "user", "builtin", "path"]


class Guardrails(BaseModel):
    """How deep, how long and with how many model calls a deck may run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    depth: int = Field(default=3, ge=1, le=8)
    passes: int = Field(default=3, ge=1, le=50)  # model calls per run of the deck
    timeout_s: float = Field(default=120.0, gt=0, le=1800)  # wall time, children included


@dataclass(frozen=True)
class Action:
    """A tool of the deck that runs another deck (the child) with the call's arguments."""

    name: str  # the tool name the parent's model calls (default: the child deck's name)
    path: str  # as written in the file
    target: Path  # the child deck's file, resolved
    description: str  # default: the child's description
    activity: str  # default: the action's name


@dataclass(frozen=True)
class Deck:
    """A deck as loaded and checked."""

    name: str
    path: Path  # the deck's file (NAME.deck.md, NAME/deck.md, NAME.deck.py)
    origin: Origin  # "path": loaded by file path (`zizou run FILE`)
    description: str
    input_schema: dict[str, Any] | None  # JSON Schema; None: not declared (string, root only)
    output_schema: dict[str, Any] | None  # JSON Schema; None: not declared (string, root only)
    body: str  # the deck's prompt: its body, then each embedded card's body in embed order
    model: str | None = None
    mode: Literal["llm", "compute"] = "llm"
    tools: tuple[str, ...] = DEFAULT_TOOLS
    actions: tuple[Action, ...] = ()
    activity: str = ""  # default: the deck's name
    guardrails: Guardrails = field(default_factory=Guardrails)
    handlers: dict[str, Path] = field(default_factory=dict)  # on_error / on_suspense -> file
    suspense_delay_ms: int = 800
    state_schema: dict[str, Any] | None = None  # `state:` or a directory deck's state.schema.json
    instructions_dir: Path | None = None  # a directory deck's instructions/
    line: int = 1  # where the front matter starts, for messages
    sha256: str = ""  # of the deck file's bytes
    reads_only: bool = True  # read-only tools only, and every action's child reads only
    # A Python deck's text: the very text hashed (`sha256`) and trusted, which a compute deck's
    # worker runs (the file is never read again). Empty for a Markdown deck.
    source: str = field(default="", repr=False)

    @property
    def declared(self) -> bool:
        """Both schemas declared: the deck can be called as a tool."""
        return self.input_schema is not None and self.output_schema is not None

    @property
    def input_is_string(self) -> bool:
        return _is_string(self.input_schema)

    @property
    def output_is_string(self) -> bool:
        return _is_string(self.output_schema)

    @property
    def read_only(self) -> bool:
        return self.reads_only

    def tool_parameters(self) -> dict[str, Any]:
        """The JSON Schema of the arguments of a call to this deck: its input schema when that
        is an object schema, else the input wrapped as `{"input": ...}`."""
        schema = self.input_schema
        if schema is not None and schema.get("type") == "object":
            return schema
        return {
            "type": "object",
            "properties": {"input": schema if schema is not None else STRING_SCHEMA},
            "required": ["input"],
            "additionalProperties": False,
        }


def _is_string(schema: dict[str, Any] | None) -> bool:
    return schema is None or schema.get("type") == "string"


@dataclass(frozen=True)
class Problem:
    """Why a deck file cannot be used, at a line of it."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{shown_path(self.path)}:{self.line}: {self.message}"


def shown_path(path: Path) -> str:
    """`path` relative to the current directory when it is under it, else as it is."""
    try:
        cwd = Path.cwd()
    except OSError:
        return str(path)
    if path.is_relative_to(cwd):
        return os.path.relpath(path, cwd)
    return str(path)


@dataclass
class DeckSet:
    """Every deck found: the valid ones by name, and why the others were left out."""

    decks: dict[str, Deck]  # valid decks by name, after overrides
    problems: list[Problem]  # every bad file, each bad deck left out
    warnings: list[str]  # overrides, untrusted Python decks, too few passes for tools
    files: dict[Path, Deck] = field(default_factory=dict)  # every valid deck loaded, by file

    def get(self, name: str) -> Deck | None:
        return self.decks.get(name)

    def by_path(self, path: Path) -> Deck | None:
        """The deck loaded from the file `path` (overridden, or a child, included)."""
        deck = self.files.get(path)
        if deck is not None:
            return deck
        real = Path(os.path.realpath(path))
        return self.files.get(real) or next(
            (d for d in self.decks.values() if d.path in (path, real)), None
        )

    def tools(self) -> list[Deck]:
        """The decks the main agent may call: those declaring both schemas, by name."""
        return sorted((d for d in self.decks.values() if d.declared), key=lambda d: d.name)


__all__ = [
    "DECK_TOOLS",
    "DEFAULT_TOOLS",
    "HARD_MAXIMA",
    "MCP_TOOL_RE",
    "NAME_RE",
    "READ_ONLY_TOOLS",
    "RESERVED_NAMES",
    "RESERVED_PREFIX",
    "STRING_SCHEMA",
    "Action",
    "Deck",
    "DeckSet",
    "Guardrails",
    "Problem",
    "uses_tool",
]
