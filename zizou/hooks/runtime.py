"""The hook runtime: runs every hook's render before each model step, reconciles what they
define, runs their effects, and turns what they ask into the step's changes.

It implements core's `StepEffects` (the request a step sends), `ToolPolicy` (`before_tool`, after
the permission rules, only tightening) and `TurnRecorder` (it follows the turn's events, for
`ctx.last_tool` and `ctx.user_message`). Hooks run in a fixed order: built-in, then the user's,
then the project's, each group by file name; effects in the order they were registered.

A failing hook never stops the turn: a render that raises disables its file, an effect that
raises disables that effect, a `before_tool` that raises is dropped; each says so once as a
`HookWarning` (its traceback goes to the debug log), and an effect slower than 100 ms is warned
about. Tools narrow by intersection: each file's `step("tools", ...)` calls add up, and a tool
stays offered only when every file that narrowed the tools kept it.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import inspect
import logging
import sys
import threading
import time
import traceback
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from zizou.contracts.events import (
    AnyEvent,
    HookWarning,
    StepStarted,
    ToolCallFinished,
    ToolCallStarted,
    TurnStarted,
)
from zizou.contracts.protocols import ModelRequest, PolicyVerdict, StepChanges, StepInput
from zizou.contracts.state import SessionState
from zizou.hooks.api import (
    _LOADING,
    Definition,
    EffectSpec,
    HookError,
    LastTool,
    ModuleHooks,
    Prompt,
    PromptContext,
    StateStore,
    StepModifier,
    StepOrders,
    ToolCallInfo,
    ToolInfo,
    Tools,
)
from zizou.tools import Registry

log = logging.getLogger(__name__)

SLOW_EFFECT_S = 0.1  # an effect slower than this is warned about
ASYNC_EFFECT_LIMIT_S = 2.0  # an async effect is awaited this long, then given up on
LAST_OUTPUT_CHARS = 2_000

# What a hook's failure may raise: a hook calling sys.exit() must not end the session.
HOOK_FAILURES = (Exception, SystemExit)
Origin = Literal["builtin", "user", "project"]
ORIGIN_ORDER: dict[str, int] = {"builtin": 0, "user": 1, "project": 2}


@dataclass(frozen=True)
class HookSource:
    """A hook file as found: where it comes from, its kind, its text and the text's SHA-256.
    A built-in hook, or a command of another agent's settings, has its `render` function
    (the command is its text)."""

    name: str  # how it is named to the user: "builtin:modes", "user:x.py", ".zizou/hooks/x.py"
    origin: Origin
    kind: Literal["python", "markdown", "command"]
    text: str = ""
    path: Path | None = None
    sha256: str = ""
    render: Callable[[Prompt], None] | None = None
    on_event: Callable[[AnyEvent], None] | None = None  # a command hook's turn events

    @property
    def sort_key(self) -> tuple[int, str]:
        return ORIGIN_ORDER[self.origin], self.name


@dataclass
class _Part:
    """One hook's share of a step's changes."""

    systems: list[tuple[str, str]] = field(default_factory=list)
    variables: list[tuple[str, str]] = field(default_factory=list)
    reminders: list[tuple[str, str]] = field(default_factory=list)
    hidden: list[tuple[str, str]] = field(default_factory=list)
    messages: tuple[dict[str, Any], ...] | None = None
    problem: str | None = None


@dataclass
class _Effect:
    deps: tuple[Any, ...] | None = None
    cleanup: Callable[[], Any] | None = None
    ran_once: bool = False


@dataclass
class _Hook:
    """A loaded hook file and what it keeps between steps."""

    source: HookSource
    render: Callable[[Prompt], None]
    store: StateStore
    effects: dict[str, _Effect] = field(default_factory=dict)
    policies: list[Callable[..., Any]] = field(default_factory=list)
    definitions: dict[str, Definition] = field(default_factory=dict)
    disabled: str | None = None  # why it no longer runs
    dead_effects: set[str] = field(default_factory=set)  # effects that raised: never run again
    dropped: set[str] = field(default_factory=set)  # before_tool policies that raised

    @property
    def label(self) -> str:
        return f"hook:{self.source.name}"


def load_python(source: HookSource, store: StateStore) -> Callable[[Prompt], None]:
    """Run a Python hook file's text (the very bytes that were hashed and trusted, never read
    again from disk) and return its render: its own `render(p)` if it has one, then what it
    registered at module level. Raises whatever the file raises."""
    digest = hashlib.sha256(f"{source.name}\0{source.text}".encode()).hexdigest()[:16]
    module = types.ModuleType(f"zizou_hook_{digest}")
    module.__file__ = str(source.path or source.name)
    hooks = ModuleHooks(store)
    # In sys.modules while it runs and after, as an imported module is: dataclasses, enums and
    # typing.get_type_hints look their module up there.
    sys.modules[module.__name__] = module
    token = _LOADING.set(hooks)
    try:
        exec(compile(source.text, module.__file__, "exec"), module.__dict__)
    except BaseException:
        sys.modules.pop(module.__name__, None)
        raise
    finally:
        _LOADING.reset(token)
    own = module.__dict__.get("render")
    if own is not None and not callable(own):
        raise HookError("`render` is not a function")

    def render(p: Prompt) -> None:
        if own is not None:
            own(p)
        hooks.render(p)

    return render


class HookRuntime:
    """Every loaded hook of a session, run before each step."""

    def __init__(self, registry: Registry, state: SessionState) -> None:
        self.registry = registry
        self.state = state
        self.hooks: list[_Hook] = []
        self.skipped: dict[str, str] = {}  # hook name -> why it is not loaded
        self._pending: list[HookWarning] = []  # warnings not yet told (before_tool's)
        self._ctx: PromptContext | None = None
        self._last_tool: LastTool | None = None
        self._calls: dict[str, tuple[str, str, int]] = {}  # call id -> name, arguments, step
        self._step = 0
        self._user_message = ""
        self._shown: tuple[dict[str, str], dict[str, str]] = ({}, {})  # the last request's
        self._planning = threading.Lock()

    # Loading

    def add(self, source: HookSource) -> str | None:
        """Load `source` (already trusted, when it needs trust); a warning when it fails."""
        store = StateStore(values=dict(self.state.hook_state.get(source.name, {})))
        try:
            if source.render is not None:
                render = source.render
            elif source.kind == "markdown":
                from zizou.hooks.markdown import compile_markdown

                render = compile_markdown(source.name, source.text)
            else:
                render = load_python(source, store)
        except HOOK_FAILURES as exc:
            log.warning("the hook %s could not be loaded", source.name, exc_info=True)
            why = f"{type(exc).__name__}: {exc}"
            self.skipped[source.name] = f"failed to load ({why})"
            return f"hook {source.name} was not loaded: {why}"
        self.skipped.pop(source.name, None)
        self.hooks = sorted(
            [
                *(h for h in self.hooks if h.source.name != source.name),
                _Hook(source, render, store),
            ],
            key=lambda hook: hook.source.sort_key,
        )
        return None

    def state_restored(self) -> None:
        """The session's hooks' state was set back (an undo, a redo): each hook goes on from
        its values as the session holds them now."""
        for hook in self.hooks:
            hook.store.values = dict(self.state.hook_state.get(hook.source.name, {}))
            hook.store.pending = {}

    def skip(self, source: HookSource, why: str) -> None:
        self.skipped[source.name] = why

    # StepEffects

    def plan_step(self, step: StepInput) -> StepChanges:
        """Every hook's render and effects for the coming step, and what they change. One
        step at a time (a cancelled turn's planning thread may still be running); nothing a
        hook does escapes as an exception."""
        with self._planning:
            try:
                return self._plan(step)
            except HOOK_FAILURES as exc:  # a bug of the runtime's own: the step goes on bare
                log.exception("the hooks could not plan step %d", step.step)
                return StepChanges(warnings=(_warning("hooks", exc, "planning failed"),))

    def _plan(self, step: StepInput) -> StepChanges:
        started = time.perf_counter()
        ctx = self._context(step)
        names = self.registry.names()  # what step("tools", ...) may name
        orders: list[tuple[_Hook, StepOrders]] = []
        ran: list[str] = []
        warnings: list[HookWarning] = self._pending
        self._pending = []
        for hook in self.hooks:
            if hook.disabled:
                continue
            p = Prompt(ctx, hook.store)
            try:
                hook.render(p)
            except HOOK_FAILURES as exc:
                warnings.append(self._disable(hook, exc, "render"))
                continue
            self._reconcile(hook, p)
            hook.policies = [f for f in p.policies if _name(f) not in hook.dropped]
            order = StepOrders(reminders=list(p.reminders))
            modifier = StepModifier(order, names)
            for spec in p.effects:
                line = self._run_effect(hook, spec, ctx, modifier, warnings)
                if line:
                    ran.append(line)
            orders.append((hook, order))
        changes = self._changes(step, orders, ran, warnings)
        self._commit_state()
        log.debug(
            "hooks planned step %d in %.2f ms", step.step, 1000 * (time.perf_counter() - started)
        )
        return changes

    def _changes(
        self,
        step: StepInput,
        orders: list[tuple[_Hook, StepOrders]],
        ran: list[str],
        warnings: list[HookWarning],
    ) -> StepChanges:
        """The step's changes from what each hook defined and asked: its systems and variables
        (or those its `step(...)` put in their place), its reminders, its narrowing."""
        hidden: dict[str, str] = {}
        systems: list[tuple[str, str]] = []
        variables: list[tuple[str, str]] = []
        reminders: list[tuple[str, str]] = []
        messages: tuple[dict[str, Any], ...] | None = None
        for hook, order in orders:
            try:
                part = self._part(step, hook, order)
            except HOOK_FAILURES as exc:
                warnings.append(self._disable(hook, exc, "output"))
                continue
            systems += part.systems
            variables += part.variables
            reminders += part.reminders
            for name, why in part.hidden:
                hidden.setdefault(name, why)
            if part.problem:
                warnings.append(HookWarning(hook.label, part.problem))
            elif part.messages is not None:
                messages = part.messages
        self._shown = (dict(systems), dict(variables))
        return StepChanges(
            hidden=tuple(hidden.items()),
            systems=(*systems, *variables),
            reminders=tuple(reminders),
            effects_run=tuple(ran),
            messages=messages,
            warnings=tuple(warnings),
        )

    def _part(self, step: StepInput, hook: _Hook, order: StepOrders) -> _Part:
        """What one hook adds to the step (anything in it may raise: a value's `__str__`, a
        history that is not a list of messages)."""
        part = _Part()
        shown = [d for d in hook.definitions.values() if not d.disabled]
        if order.systems is not None:
            shown = [d for d in shown if d.kind != "system"]
            shown += [Definition("system", n, v) for n, v in order.systems.items()]
        if order.variables is not None:
            shown = [d for d in shown if d.kind != "variable"]
            shown += [Definition("variable", n, v) for n, v in order.variables.items()]
        part.systems = [(d.name, d.text()) for d in shown if d.kind == "system"]
        part.variables = [(d.name, d.text()) for d in shown if d.kind == "variable"]
        part.reminders = [(hook.label, d.text()) for d in hook.definitions.values() if d.reminded]
        part.reminders += [(hook.label, text) for text in order.reminders]
        if order.tools is not None:
            why = order.tools_why or "this step's tools were narrowed"
            part.hidden = [
                (name, f"{why} ({hook.label})") for name in step.tools if name not in order.tools
            ]
        if order.messages is not None:
            problem = _messages_problem(order.messages, step.messages)
            if problem is None:
                part.messages = tuple(order.messages)
            else:
                part.problem = f"step('messages') was not applied: {problem}"
        return part

    def _context(self, step: StepInput) -> PromptContext:
        task = self.state.task
        tools = Tools(
            ToolInfo(tool.name, tool.summary, tool.access_kind)
            for name in step.tools
            if (tool := self.registry.get(name)) is not None
        )
        ctx = PromptContext(
            step_number=step.step,
            turn_number=step.turn,
            mode=self.state.mode,
            model=step.model,
            usage=step.usage,
            messages=step.messages,
            tools=tools,
            systems=types.MappingProxyType(self._shown[0]),
            variables=types.MappingProxyType(self._shown[1]),
            last_tool=self._last_tool,
            task_state=None if task is None else types.MappingProxyType(copy.deepcopy(task.value)),
            workspace=self.state.windows,
            user_message=self._user_message,
        )
        self._ctx = ctx
        return ctx

    def _reconcile(self, hook: _Hook, p: Prompt) -> None:
        """This render's definitions and effects become the hook's: same key, updated; a key
        the render no longer defines, removed (an effect's cleanup runs); a new key, added."""
        hook.definitions = p.definitions
        keys = {spec.key for spec in p.effects}
        for key in [k for k in hook.effects if k not in keys]:
            self._cleanup(hook, key, hook.effects.pop(key))

    def _run_effect(
        self,
        hook: _Hook,
        spec: EffectSpec,
        ctx: PromptContext,
        modifier: StepModifier,
        warnings: list[HookWarning],
    ) -> str | None:
        if spec.key in hook.dead_effects:
            return None
        effect = hook.effects.setdefault(spec.key, _Effect())
        name = f"{hook.label}/{spec.key}"
        if spec.error is not None:
            hook.dead_effects.add(spec.key)
            warnings.append(_warning(name, spec.error, "its deps raised; it is disabled"))
            return None
        if effect.ran_once and spec.deps is not None and _same(spec.deps, effect.deps):
            return None
        why = (
            "first run"
            if not effect.ran_once
            else ("every step" if spec.deps is None else "deps changed")
        )
        self._cleanup(hook, spec.key, effect)
        started = time.perf_counter()
        try:
            result = spec.fn(ctx, modifier)
            if inspect.isawaitable(result):
                result = _await(result)
        except HOOK_FAILURES as exc:
            hook.dead_effects.add(spec.key)
            warnings.append(_warning(name, exc, "raised; it is disabled for this session"))
            return f"{name} ({why}) raised: {type(exc).__name__}: {exc}"
        took = time.perf_counter() - started
        effect.deps, effect.ran_once = spec.deps, True
        effect.cleanup = result if callable(result) else None
        if took > SLOW_EFFECT_S:
            warnings.append(HookWarning(name, f"took {took * 1000:.0f} ms (over 100 ms a step)"))
        return f"{name} ({why}) {took * 1000:.2f} ms"

    def _cleanup(self, hook: _Hook, key: str, effect: _Effect) -> None:
        cleanup, effect.cleanup = effect.cleanup, None
        if cleanup is None:
            return
        try:
            cleanup()
        except HOOK_FAILURES as exc:
            self._pending.append(_warning(f"{hook.label}/{key}", exc, "cleanup raised"))

    def _disable(self, hook: _Hook, exc: BaseException, where: str) -> HookWarning:
        hook.disabled = f"its {where} raised {type(exc).__name__}: {exc}"
        for key, effect in list(hook.effects.items()):
            self._cleanup(hook, key, effect)
        hook.policies = []
        return _warning(hook.label, exc, f"{where} raised; the hook is disabled for this session")

    def _commit_state(self) -> None:
        """The step is planned: the hooks' state sets take effect, and go to the session."""
        for hook in self.hooks:
            pending, hook.store.pending = hook.store.pending, {}
            for key, value in pending.items():
                hook.store.values[key] = value
                self.state.set_hook_state(hook.source.name, key, value)

    # ToolPolicy

    def before_tool(self, name: str, arguments: dict[str, Any], kind: str) -> PolicyVerdict | None:
        """The first `deny` of any hook, else the first `ask`, else None."""
        call = ToolCallInfo(name, types.MappingProxyType(arguments), kind)
        asked: PolicyVerdict | None = None
        for hook in self.hooks:
            if hook.disabled:
                continue
            for policy in list(hook.policies):
                label = f"{hook.label}/{_name(policy)}"
                try:
                    verdict = policy(call, self._ctx)
                    if inspect.isawaitable(verdict):
                        verdict = _await(verdict)
                    if verdict is not None and not isinstance(verdict, PolicyVerdict):
                        raise HookError(
                            f"before_tool returned {type(verdict).__name__}; return deny(...), "
                            "ask(...) or None"
                        )
                except HOOK_FAILURES as exc:  # fails closed: this call is refused
                    hook.policies.remove(policy)
                    hook.dropped.add(_name(policy))
                    self._pending.append(_warning(label, exc, "before_tool failed; it is dropped"))
                    return PolicyVerdict("deny", f"{label} failed: {exc}", hook.label)
                if verdict is None:
                    continue
                verdict = PolicyVerdict(verdict.verdict, verdict.reason, hook.label)
                if verdict.verdict == "deny":
                    return verdict
                asked = asked or verdict
        return asked

    # TurnRecorder: the turn's events, for the prompt context

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self._user_message = user_text
        self._last_tool = None

    def record_request(self, step: int, request: ModelRequest) -> None:
        pass

    def emit(self, event: AnyEvent) -> None:
        match event:
            case TurnStarted(user_text=text):
                self._user_message, self._last_tool = text, None
                self._calls.clear()
            case StepStarted(step=step):
                self._step = step
            case ToolCallStarted(call_id=call_id, name=name, arguments=arguments):
                self._calls[call_id] = (name, arguments, self._step)
            case ToolCallFinished(call_id=call_id):
                name, raw, step = self._calls.pop(call_id, (event.name, "{}", self._step))
                self._last_tool = LastTool(
                    name,
                    types.MappingProxyType(_arguments(raw)),
                    event.ok,
                    _tail(event.output),
                    event.duration_s,
                    step,
                )
            case _:
                pass
        for hook in self.hooks:
            if hook.source.on_event is not None and not hook.disabled:
                try:
                    hook.source.on_event(event)
                except HOOK_FAILURES:
                    name = hook.source.name
                    log.warning("the hook %s failed on %s", name, event.type, exc_info=True)

    def pending_warnings(self) -> list[HookWarning]:
        """Warnings not yet told (a `before_tool` that raised on the turn's last step)."""
        pending, self._pending = self._pending, []
        return pending


def _name(policy: Callable[..., Any]) -> str:
    return str(getattr(policy, "__qualname__", None) or getattr(policy, "__name__", "before_tool"))


def _tail(output: str) -> str:
    """The end of a tool's output, where a command's verdict is (a test run's summary)."""
    if len(output) <= LAST_OUTPUT_CHARS:
        return output
    return "…" + output[-(LAST_OUTPUT_CHARS - 1) :]


def _arguments(raw: str) -> dict[str, Any]:
    import json

    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _same(now: tuple[Any, ...], before: tuple[Any, ...] | None) -> bool:
    if before is None or len(now) != len(before):
        return False
    try:
        return all(a is b or a == b for a, b in zip(now, before, strict=True))
    except Exception:  # a value whose == raises counts as changed
        return False


def _await(awaitable: Any) -> Any:
    """An async effect, awaited at most ASYNC_EFFECT_LIMIT_S (the step is planned in a worker
    thread, which has no event loop of its own)."""

    async def bounded() -> Any:
        return await asyncio.wait_for(awaitable, ASYNC_EFFECT_LIMIT_S)

    try:
        return asyncio.run(bounded())
    except TimeoutError:
        raise HookError(f"an async effect took over {ASYNC_EFFECT_LIMIT_S:.0f} s") from None


def _warning(name: str, exc: BaseException, what: str) -> HookWarning:
    log.warning("%s %s: %s", name, what, exc)
    detail = "".join(traceback.format_exception(exc))
    return HookWarning(name, f"{what} ({type(exc).__name__}: {exc})", detail)


def _messages_problem(
    messages: list[dict[str, Any]], current: tuple[Mapping[str, Any], ...]
) -> str | None:
    """Why a hook's replacement history may not be sent, if it may not: it must end with the
    history's last message, know only the roles providers take, and answer every tool call with
    one result before the next message, as the conversation always does."""
    if not messages:
        return "it is empty"
    if current and messages[-1] != dict(current[-1]):
        return "it does not keep the last message"
    pending: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role not in ("user", "assistant", "tool"):
            return f"a message has the role {role!r}"
        if role == "tool":
            call_id = str(message.get("tool_call_id"))
            if call_id not in pending:
                return f"the tool result {call_id!r} does not follow its call"
            pending.discard(call_id)
            continue
        if pending:
            return f"the tool calls {sorted(pending)} have no result"
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            return "a message's tool_calls is not a list"
        pending = {str(c.get("id")) for c in calls if isinstance(c, Mapping)}
    return f"the tool calls {sorted(pending)} have no result" if pending else None


__all__ = ["HookRuntime", "HookSource", "load_python"]
