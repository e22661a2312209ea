"""The contract every tool implements, and the per-session state tools share.

A tool is a class with a pydantic `Args` model (its JSON schema is what the model gets), a
docstring (the description the model reads), a one-sentence `summary` (its line in the prompt's
tool guide), an `access` that declares and resolves what a call touches, and the work itself:
`work` (synchronous, run in a worker thread so the screen never waits) or `execute` (async).

A call is parsed and validated once; `access` resolves it once, opening its files as
`PathHandle`s; the approval shows that Access and the work uses the same handles, so what was
approved is what is written. A tool that declares no access is "undeclared": asked for, never
allowed silently. Failures are returned as `ToolResult(ok=False, ...)`, never raised: the model
reads the message and recovers.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from zizou.confined import PathHandle, open_handle, relative, resolve
from zizou.contracts.events import Nested
from zizou.contracts.instructions import InstructionSet
from zizou.contracts.messages import ImagePart
from zizou.contracts.protocols import CommandWatching
from zizou.contracts.state import FileView, SessionState
from zizou.contracts.task_state import PatchResult
from zizou.contracts.windows import WindowSpec
from zizou.contracts.workspace import Window, WindowInfo
from zizou.errors import PathError
from zizou.tools._wire_schema import wire_schema
from zizou.tools.jobs import JobTable

if TYPE_CHECKING:
    from zizou.sandbox import Sandbox
    from zizou.sandbox.layer_apply import Applied

# "job": acts only on a command zizou started (job_kill), never on anything else.
# "mcp": a call to an MCP server's tool, which zizou cannot see into: approved like a command.
AccessKind = Literal[
    "read", "write", "delete", "exec", "network", "open", "job", "mcp", "commit", "undeclared"
]


class ToolArgs(BaseModel):
    """Base for tool argument models: unknown fields are an error the model can read."""

    model_config = ConfigDict(extra="forbid", frozen=True)


A = TypeVar("A", bound=ToolArgs)


class ArgsProblem(ValueError):
    """Arguments that fail a check the tool makes itself (a JSON Schema it was given, not a
    pydantic model): each problem reads `field: message`."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class ToolResult:
    """What the model reads back (`output`), plus display extras for front ends."""

    ok: bool
    output: str
    diff: str | None = None  # unified diff of a write or edit, for the UI
    replaced: str | None = None  # the text a write or edit replaced (for undo), if not too big
    duration_s: float | None = None  # how long the tool ran (not counting the approval wait)
    images: tuple[ImagePart, ...] = ()  # images for the model (an MCP tool's), if it takes them
    # A command run in its own copy-on-write layer: what it changed, moved into the project.
    applied: Applied | None = None

    @classmethod
    def error(cls, message: str) -> ToolResult:
        return cls(ok=False, output=message)


MAX_REPLACED_CHARS = 1_000_000  # an old content bigger than this is not kept (for undo)


def kept(old_text: str | None) -> str | None:
    """What a write keeps of the text it replaced: all of it, unless it is too big."""
    return old_text if old_text is not None and len(old_text) <= MAX_REPLACED_CHARS else None


@dataclass(frozen=True)
class Access:
    """What a call will touch, for the permission check (core/permissions.py) and the approval.

    `handles` are the files the call reads or writes, opened when the call was resolved: the
    work uses them, never the raw path again. The runner closes them when the call ends.
    """

    kind: AccessKind
    paths: tuple[str, ...] = ()  # project-relative POSIX paths, already resolved
    command: str | None = None  # for "exec": the exact command line
    handles: tuple[PathHandle, ...] = field(default=(), compare=False)
    places: tuple[Path, ...] = ()  # the real paths of `paths`, for tools that walk a directory
    # For "exec": the command only reads, and only inside the project (no secret file, no link
    # out): it never asks (core/permissions.py).
    read_only: bool = False
    # For "exec": how what the command changes is found for undo (core/command_watch.py).
    watched: CommandWatching = "snapshot"

    def handle(self) -> PathHandle:
        """The call's one file."""
        [only] = self.handles
        return only

    def close(self) -> None:
        for handle in self.handles:
            handle.close()


def place_access(kind: AccessKind, ctx: ToolContext, *raw: str) -> Access:
    """The Access of a call on places found by path (a directory to walk, a file to hand to
    another program): resolved now; the work uses `places`, never the raw paths again."""
    places = tuple(resolve(ctx.root, one) for one in raw)
    return Access(kind=kind, paths=tuple(relative(ctx.root, p) for p in places), places=places)


def file_access(kind: AccessKind, ctx: ToolContext, raw: str) -> Access:
    """The Access of a call on one file: resolved and opened now (a PathError when unsafe)."""
    handle = open_handle(ctx.root, raw)
    return Access(kind=kind, paths=(handle.rel,), handles=(handle,))


class ToolState(Protocol):
    """The tools' narrow handle on the session's state (core/state.py owns it)."""

    def open_window(
        self, path: str, spec: WindowSpec, by: str = "model"
    ) -> tuple[Window, bool]: ...

    def close_windows(
        self, path: str | None = None, window_id: str | None = None, by: str = "model"
    ) -> list[Window]: ...

    @property
    def windows(self) -> tuple[WindowInfo, ...]: ...

    def window(self, window_id: str, use: bool = True) -> Window | None: ...

    def windows_of(self, path: str) -> list[Window]: ...

    def paths(self) -> tuple[str, ...]: ...

    def update_task(
        self,
        patch: list[dict[str, Any]] | None = None,
        merge: dict[str, Any] | None = None,
        source: str = "model",
    ) -> PatchResult: ...

    def add_sticky(self, name: str) -> None: ...

    def record_view(self, path: Path, data: bytes, view: FileView) -> None: ...

    def check_unchanged(self, path: Path, data: bytes) -> str | None: ...

    def file_written(
        self, path: Path, rel: str, before: list[str] | None, after: list[str], data: bytes
    ) -> None: ...


class CodeMap(Protocol):
    """The project's repo map, as the repo_map tool asks it (the prompt's warm map: the tools
    layer sits below repomap's users and does not import it)."""

    def focused(self, focus: tuple[str, ...], identifiers: tuple[str, ...], max_tokens: int) -> str:
        """The map within `max_tokens`, the focus files' and the identifiers' definitions
        first; empty when there is no source to map."""
        ...


@dataclass
class ToolContext:
    """Everything a tool may use. The project root never comes from a model argument."""

    root: Path
    state: ToolState = field(default_factory=SessionState)  # the session's, in a run
    env: dict[str, str] | None = None  # child environment for commands (secrets removed)
    sandbox: Sandbox | None = None  # where commands run; None: unsandboxed
    network: bool = False  # this call's command may use the network (an approval said so)
    code_map: CodeMap | None = None  # the repo map service; None where there is none
    instructions: InstructionSet | None = None  # the session's instructions on demand
    emit: Callable[[str], None] | None = None  # this call's progress lines (thread-safe)
    nest: Callable[[Nested], None] | None = None  # the events of a deck's run this call started
    jobs: JobTable = field(default_factory=JobTable)  # the commands started, by id (the session's)
    # Where a write that leaves a file that parsed unparsable is refused ([checks]
    # refuse_breaking): what is wrong with the new bytes, given the file's path, old and new.
    breaking: Callable[[str, bytes, bytes], str | None] | None = None

    def progress(self, text: str) -> None:
        """Tell the person how far the call is (a ToolProgress event); a no-op outside a run."""
        if self.emit is not None:
            self.emit(text)


SUMMARY_MAX_CHARS = 100


_SCHEMAS: dict[type, dict[str, Any]] = {}


class Tool(Generic[A]):
    """Subclass with `name`, `summary`, `Args`, a docstring, `access`, and `work` (or `execute`
    when the work awaits).

    `summary` is the tool's line in the system prompt's tool guide: one whole sentence of at most
    SUMMARY_MAX_CHARS characters, written to fit (the guide never cuts it). The docstring is the
    full description sent with the tool's schema. `label_field` names the argument a person
    recognises a call by (the path, the command, the pattern).
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    Args: ClassVar[type[ToolArgs]]
    label_field: ClassVar[str | None] = "path"
    # False for an old name kept so that old sessions' calls still run: it is neither listed in
    # the tool guide nor sent to the model, but a call to it works.
    advertised: ClassVar[bool] = True
    alias_of: ClassVar[str | None] = None  # the tool this is an old name of: offered with it
    # What its calls touch, whatever their arguments ("read", "write", "delete", "exec",
    # "open"): what hooks and plan mode read; each call still declares its own `access`.
    access_kind: ClassVar[str] = "undeclared"
    # May run beside the other calls of its step (zizou/agent/parallel.py): it only reads, and
    # changes nothing of the session (no task state, no window, no deck's output).
    side_by_side: ClassVar[bool] = False
    # The same call may rightly come again and get another answer (a job's output as it runs):
    # the loop guard does not count its repeats.
    repeatable: ClassVar[bool] = False

    offered_once: ClassVar[str] = ""  # when `applies` says it may run: "a window is open"

    def applies(self, ctx: ToolContext) -> bool:
        """Whether a call could do anything now: a tool that could not (a job's tool with no
        job, a window's with no window) is not offered in the step, which keeps the request
        small; it is offered from the step after one exists. The tool guide lists it always."""
        return True

    @classmethod
    def description(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or cls.name)

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The OpenAI-style function schema sent to the model (built once per class: it is
        sent at every step)."""
        cached = _SCHEMAS.get(cls)
        if cached is None:
            cached = _SCHEMAS[cls] = cls._build_schema()
        return copy.deepcopy(cached)

    @classmethod
    def _build_schema(cls) -> dict[str, Any]:
        params = wire_schema(cls.Args.model_json_schema())
        return {
            "type": "function",
            "function": {"name": cls.name, "description": cls.description(), "parameters": params},
        }

    def parse_args(self, data: dict[str, Any]) -> ToolArgs:
        """The call's arguments, validated: pydantic's ValidationError, or ArgsProblem, when
        they do not fit."""
        return self.Args.model_validate(data)

    def label(self, args: A) -> str:
        """How a person recognises this call in one line: its main argument, and the window
        of lines it names, if any."""
        fields = args.model_dump()
        value = fields.get(self.label_field) if self.label_field else None
        if not isinstance(value, str):
            return " ".join(str(v) for v in fields.values() if isinstance(v, str | int | float))
        start, end = fields.get("start_line"), fields.get("end_line")
        if isinstance(start, int) or isinstance(end, int):
            value += f":{start or 1}-{end or ''}"
        return value

    def access(self, args: A, ctx: ToolContext) -> Access:
        """What this call touches, resolved (files opened as handles). Raise `PathError` for an
        unsafe path. A tool that does not say is "undeclared": the policy asks for it."""
        return Access(kind="undeclared")

    def preview(self, args: A, access: Access, ctx: ToolContext) -> str | None:
        """What the user is shown when asked to approve this call (a diff, the cwd...)."""
        import json

        fields = {k: v for k, v in args.model_dump().items() if k != "path"}
        return json.dumps(fields, indent=2)[:4000] if fields else None

    async def execute(self, args: A, access: Access, ctx: ToolContext) -> ToolResult:
        """Do the call's work. By default `work` runs in a worker thread; a thread cannot be
        stopped, so a cancelled call waits for it to finish before its handles are closed."""
        thread = asyncio.ensure_future(asyncio.to_thread(self.work, args, access, ctx))
        try:
            return await asyncio.shield(thread)
        except asyncio.CancelledError:
            await asyncio.wait({thread})
            raise

    def work(self, args: A, access: Access, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError(f"{self.name} has neither work() nor execute()")

    async def run(self, args: A, ctx: ToolContext) -> ToolResult:
        """Resolve and execute in one go, without asking anyone (scripts and tests)."""
        try:
            access = self.access(args, ctx)
        except PathError as err:
            return ToolResult.error(str(err))
        try:
            return await self.execute(args, access, ctx)
        finally:
            access.close()
