"""What a hook file sees and calls: the prompt context, the step modifier, handles, effects,
hook state and the tool policy.

A hook file exports `render(p)`, called before every model step with a `Prompt`:
`p.state(key, initial)` gives a getter and a setter (sets are batched: applied once the step is
planned, so every hook reads the same value during a step), `p.system(name, text)` and
`p.variable(name, value)` add to the HOOKS layer of the system prompt and return a `Handle`
(`.remind()` sends the item as a reminder at the end of this request only, `.disable()` keeps
it out of this request), and `@p.effect(deps=[...])` registers an effect: it runs the first
time, then again only when a dependency changed (compared with `==`, element by element); with
no deps it runs every step. Effects get `(ctx, step)`; `step(aspect, items)` shapes the coming
request only. At module level, `@effect()`, `@effect(deps=lambda ctx: [...])`, `def_state` and
`@before_tool` register into an implicit render, so a small hook needs no `render` at all.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

from zizou.contracts.events import Usage
from zizou.contracts.protocols import PolicyVerdict
from zizou.contracts.workspace import WindowInfo

Aspect = Literal["tools", "systems", "messages", "variables"]
ASPECTS: tuple[str, ...] = ("tools", "systems", "messages", "variables")
T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


class HookError(Exception):
    """A hook used the API wrongly (an unknown aspect, a tool that does not exist): the hook's
    effect is disabled with this message as its warning."""


@dataclass(frozen=True)
class ToolInfo:
    """A tool of the registry: its name, its description, and what its calls touch ("read",
    "write", "delete", "exec", "open", "job", "undeclared")."""

    name: str
    description: str
    access: str


class Tools(tuple[ToolInfo, ...]):
    """The tools this step would offer, in order."""

    def has(self, name: str) -> bool:
        return any(tool.name == name for tool in self)

    def names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self)

    def filter(self, keep: Callable[[ToolInfo], bool]) -> Tools:
        return Tools(tool for tool in self if keep(tool))


@dataclass(frozen=True)
class LastTool:
    """The latest tool call of the turn, finished: the last 2,000 characters of its output."""

    name: str
    arguments: Mapping[str, Any]
    ok: bool
    output: str
    duration_s: float
    step: int


@dataclass(frozen=True)
class ToolCallInfo:
    """A call `before_tool` is asked about: the tool, its validated arguments, what it touches."""

    name: str
    arguments: Mapping[str, Any]
    access: str


@dataclass(frozen=True)
class PromptContext:
    """What a hook reads of the coming step; read-only."""

    step_number: int  # 1-based, in the turn
    turn_number: int  # 1-based, as this process counts turns
    mode: str  # "build" or "plan"
    model: str
    usage: Usage  # of the turn's steps so far
    messages: tuple[Mapping[str, Any], ...]  # the history as the request would send it
    tools: Tools
    systems: Mapping[str, str]  # the hooks' systems the previous request had
    variables: Mapping[str, Any]  # the hooks' variables the previous request had
    last_tool: LastTool | None
    task_state: Mapping[str, Any] | None
    workspace: tuple[WindowInfo, ...]
    user_message: str = ""  # the text of the turn's user message


def deny(reason: str) -> PolicyVerdict:
    """`before_tool`'s answer: the call is refused, the model reads `reason`."""
    return PolicyVerdict("deny", reason, "")


def ask(reason: str) -> PolicyVerdict:
    """`before_tool`'s answer: the user is asked first (headless, with nobody to ask, the call
    is refused), even where the rules would let it run."""
    return PolicyVerdict("ask", reason, "")


@dataclass
class StepOrders:
    """What one hook file's `step(...)` calls asked of the coming request. Calls accumulate:
    tools named in several calls are all kept, systems and variables merge, the last messages
    replacement wins; reminders add up."""

    tools: list[str] | None = None
    tools_why: str = ""
    systems: dict[str, str] | None = None
    variables: dict[str, Any] | None = None
    messages: list[dict[str, Any]] | None = None
    reminders: list[str] = field(default_factory=list)


class StepModifier:
    """`step(aspect, items)`: shape the coming request only. "tools": the names to offer (the
    rest are hidden; `why` is what a hidden tool's refusal says), "systems": `{name: text}`
    in place of this hook file's systems, "variables": `{name: value}` in place of its
    variables, "messages": the history to send instead (it must keep the last message, and
    every tool result its call). `step.remind(text)` sends a reminder with this request."""

    def __init__(self, orders: StepOrders, known_tools: Iterable[str]) -> None:
        self._orders = orders
        self._known = frozenset(known_tools)

    def __call__(self, aspect: Aspect, items: Any, *, why: str = "") -> None:
        orders = self._orders
        if aspect == "tools":
            names = [items] if isinstance(items, str) else [_tool_name(item) for item in items]
            unknown = [name for name in names if name not in self._known]
            if unknown:
                raise HookError(f"step('tools'): no such tool: {', '.join(unknown)}")
            orders.tools = list(dict.fromkeys([*(orders.tools or []), *names]))
            orders.tools_why = why or orders.tools_why
        elif aspect == "systems":
            orders.systems = {**(orders.systems or {}), **_pairs(aspect, items)}
        elif aspect == "variables":
            orders.variables = {**(orders.variables or {}), **_pairs(aspect, items)}
        elif aspect == "messages":
            if not isinstance(items, list | tuple) or not all(isinstance(m, dict) for m in items):
                raise HookError("step('messages'): give a list of message dicts")
            orders.messages = [dict(message) for message in items]
        else:
            raise HookError(f"step(): unknown aspect {aspect!r}; one of {', '.join(ASPECTS)}")

    def remind(self, text: str) -> None:
        """Send `text` as a reminder at the end of this request only."""
        self._orders.reminders.append(str(text))


def _tool_name(item: Any) -> str:
    """A tool named by its name or by its ToolInfo (`ctx.tools.filter(...)` gives those)."""
    return item.name if isinstance(item, ToolInfo) else str(item)


def _pairs(aspect: str, items: Any) -> dict[str, Any]:
    if isinstance(items, Mapping):
        return {str(key): value for key, value in items.items()}
    try:
        return {str(key): value for key, value in items}
    except (TypeError, ValueError):
        raise HookError(f"step({aspect!r}): give a mapping or (name, value) pairs") from None


@dataclass
class Definition:
    """A system text or variable a hook defined in this step's render."""

    kind: Literal["system", "variable"]
    name: str
    value: Any
    reminded: bool = False
    disabled: bool = False

    def text(self) -> str:
        """How it reads in the prompt: a system as written, a variable as `<name>value</name>`."""
        if self.kind == "system":
            return str(self.value).strip()
        value = self.value if isinstance(self.value, str) else _json(self.value)
        return f"<{self.name}>\n{value}\n</{self.name}>"


def _json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except ValueError:  # a circular value
        return repr(value)


class Handle:
    """What `p.system` and `p.variable` return: `name`, `value`, `remind()` (also sent as a
    reminder at the end of this request), `disable()` (left out of this request);
    `str(handle)` is the reference `<name>`, to point at it from other text."""

    def __init__(self, definition: Definition) -> None:
        self._definition = definition

    @property
    def name(self) -> str:
        return self._definition.name

    @property
    def value(self) -> Any:
        return self._definition.value

    def remind(self) -> Handle:
        self._definition.reminded = True
        return self

    def disable(self) -> Handle:
        self._definition.disabled = True
        return self

    def __str__(self) -> str:
        return f"<{self.name}>"


@dataclass
class EffectSpec:
    """An effect registered this step: its key in the file, the function, its deps now (None:
    every step)."""

    key: str
    fn: Callable[..., Any]
    deps: tuple[Any, ...] | None
    error: BaseException | None = None  # its deps could not be computed: it fails alone


@dataclass
class StateStore:
    """One hook file's state: the values as of this step, and the sets waiting for its end."""

    values: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] = field(default_factory=dict)

    def accessor(self, key: str, initial: Any) -> tuple[Callable[[], Any], Callable[[Any], None]]:
        if key not in self.values:
            self.values[key] = initial

        def get() -> Any:  # a copy: a value changed in place is not saved until it is set
            return _copied(self.values.get(key, initial))

        def put(value: Any) -> None:
            if callable(value):  # set(lambda old: new), as with React's setters
                value = value(_copied(self.pending.get(key, get())))
            self.pending[key] = _copied(value)  # kept in the session file: JSON values only

        return get, put


def _copied(value: Any) -> Any:
    """A JSON value's own copy (a TypeError for one that is not JSON)."""
    return json.loads(json.dumps(value))


class Prompt:
    """The object `render(p)` gets for one step: `p.ctx` is the PromptContext."""

    def __init__(self, ctx: PromptContext, store: StateStore) -> None:
        self.ctx = ctx
        self._store = store
        self.definitions: dict[str, Definition] = {}
        self.effects: list[EffectSpec] = []
        self.policies: list[Callable[..., Any]] = []
        self.reminders: list[str] = []

    def state(self, key: str, initial: Any = None) -> tuple[Callable[[], Any], Callable[..., None]]:
        return self._store.accessor(key, initial)

    def system(self, name: str, text: str) -> Handle:
        return self._define("system", name, text)

    def variable(self, name: str, value: Any) -> Handle:
        return self._define("variable", name, value)

    def remind(self, text: str) -> None:
        """Send `text` as a reminder at the end of this request only (it is not a system)."""
        self.reminders.append(str(text))

    def _define(self, kind: Literal["system", "variable"], name: str, value: Any) -> Handle:
        key = f"{kind}:{name}"
        found = self.definitions.get(key)
        if found is None:
            found = self.definitions[key] = Definition(kind, name, value)
        found.value = value  # same key: the value is updated, its place kept
        return Handle(found)

    @overload
    def effect(self, fn: F, *, deps: Iterable[Any] | None = None) -> F: ...
    @overload
    def effect(self, fn: None = None, *, deps: Iterable[Any] | None = None) -> Callable[[F], F]: ...
    def effect(self, fn: F | None = None, *, deps: Iterable[Any] | None = None) -> Any:
        """`@p.effect()` (every step) or `@p.effect(deps=[...])` (when one of them changes)."""

        def register(f: F) -> F:
            name = getattr(f, "__name__", "effect")
            taken = sum(1 for spec in self.effects if spec.key.split("#")[0] == name)
            key = name if not taken else f"{name}#{taken + 1}"
            self.effects.append(EffectSpec(key, f, None if deps is None else tuple(deps)))
            return f

        return register(fn) if fn is not None else register

    def before_tool(self, fn: F) -> F:
        """`@p.before_tool`: `fn(call, ctx)` returns `deny(reason)`, `ask(reason)` or None."""
        self.policies.append(fn)
        return fn


@dataclass
class ModuleHooks:
    """What a Python hook file registered at module level while it was loaded."""

    store: StateStore
    effects: list[tuple[Callable[..., Any], Callable[[PromptContext], Iterable[Any]] | None]] = (
        field(default_factory=list)
    )
    policies: list[Callable[..., Any]] = field(default_factory=list)

    def render(self, p: Prompt) -> None:
        """The implicit render: the module-level effects, with their deps computed now."""
        for fn, deps in self.effects:
            try:
                now = None if deps is None else tuple(deps(p.ctx))
            except Exception as exc:  # this effect fails, not the file's others
                p.effect(fn)
                p.effects[-1].error = exc
                continue
            p.effect(fn, deps=now)
        for policy in self.policies:
            p.before_tool(policy)


_LOADING: contextvars.ContextVar[ModuleHooks | None] = contextvars.ContextVar(
    "zizou_hook_loading", default=None
)


def _loading(what: str) -> ModuleHooks:
    hooks = _LOADING.get()
    if hooks is None:
        raise HookError(f"{what} at module level works only in a hook file zizou loads")
    return hooks


Deps = Callable[[PromptContext], Iterable[Any]]


@overload
def effect(fn: F, *, deps: Deps | None = None) -> F: ...
@overload
def effect(fn: None = None, *, deps: Deps | None = None) -> Callable[[F], F]: ...
def effect(fn: F | None = None, *, deps: Deps | None = None) -> Any:
    """Module-level `@effect()` (every step) or `@effect(deps=lambda ctx: [...])`."""
    hooks = _loading("@effect")

    def register(f: F) -> F:
        hooks.effects.append((f, deps))
        return f

    return register(fn) if fn is not None else register


def def_state(key: str, initial: Any = None) -> tuple[Callable[[], Any], Callable[..., None]]:
    """Module-level hook state: a getter and a setter, kept across steps and sessions."""
    return _loading("def_state").store.accessor(key, initial)


def before_tool(fn: F) -> F:
    """Module-level `@before_tool`: `fn(call, ctx)` may `deny(...)` or `ask(...)`, only tighten."""
    _loading("@before_tool").policies.append(fn)
    return fn


__all__ = [
    "ASPECTS",
    "Aspect",
    "Definition",
    "EffectSpec",
    "Handle",
    "HookError",
    "LastTool",
    "ModuleHooks",
    "Prompt",
    "PromptContext",
    "StateStore",
    "StepModifier",
    "StepOrders",
    "ToolCallInfo",
    "ToolInfo",
    "Tools",
    "ask",
    "before_tool",
    "def_state",
    "deny",
    "effect",
]
