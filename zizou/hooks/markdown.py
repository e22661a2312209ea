"""Markdown hooks: `.zizou/hooks/*.md`, a rule written as front matter. No code of the file
runs, so a Markdown hook needs no trust; it compiles to a render like any Python hook's.

    ---
    when:
      tool_failed: run_bash
      every_steps: 1
    do:
      remind: Read the failing test's output before you edit anything.
    ---
    Optional body: the text of `remind:` or `system:` when their value is empty or `true`.

`when:` holds conditions, all of which must hold (no `when:`, or an empty one: every step):
`after_tool: NAME` (the last tool call was NAME, whatever came of it), `tool_succeeded: NAME`
(it was NAME and succeeded), `tool_failed: NAME` (it was NAME and failed),
`tool_args_match: REGEX` (one of its argument values matches), `every_steps: N`, `step: N`,
`mode: plan|build`, `message_matches: REGEX` (the turn's user message) and `state_true: KEY` or
`state_true: /json/pointer` (that task state value is truthy). NAME may be `any` or a list of
names; a REGEX is searched for, ignoring case. The last tool call is the last one to finish,
and the three conditions on it hold only on the step right after the call's: a hook reacts to
what just happened, not to a call from many steps ago (nor from an earlier turn, whose last
call the runtime forgets).

`do:` holds one or more actions: `remind: TEXT` (a reminder at the end of this request),
`system: TEXT` (in the HOOKS layer this step, under the hook's name), `tools_only: [a, b]` and
`tools_without: [a, b]` (this step offers only those, or all but those), with an optional
`why: TEXT` that a hidden tool's refusal gives. The registry is not known when a file compiles,
so tool names are checked against the step's tools instead: a name not offered is left out, and
`tools_only` naming no offered tool hides them all, as any hook narrowing the tools would.

Not YAML, on purpose: top-level `when:`, `do:` and `description:` (for people; ignored), each
either a block of indented `key: value` lines or one line, `when: tool_failed run_bash`. A value
is plain text (a ` #` comment after it is dropped), a quoted string (in single quotes a
backslash is itself, as a regex wants; double quotes take JSON escapes), an inline `[a, b]`
list (split at commas), or `- item` lines under an empty key. Anything else is a `HookError`
naming the key or the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

import regex

from zizou.hooks.api import HookError, Prompt, PromptContext, StepModifier

Value = str | list[str]
Condition = Callable[[PromptContext], bool]

SECTIONS = ("when", "do", "description")
# about the last tool call
LAST_CALL = ("after_tool", "tool_succeeded", "tool_failed", "tool_args_match")
CONDITIONS = (*LAST_CALL, "every_steps", "step", "mode", "message_matches", "state_true")
ACTIONS = ("remind", "system", "tools_only", "tools_without", "why")
MODES = ("plan", "build")
_KEY = re.compile(r"([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?")
MATCH_TIMEOUT_S = 0.05  # a pattern from the repository may not stall a step for longer


def _uncommented(text: str) -> str:
    """`text` without a ` #` comment (or one that is the whole value); linear in its length,
    since a hook file comes from the repository."""
    if text.lstrip().startswith("#"):
        return ""
    index = min((i for i in (text.find(" #"), text.find("\t#")) if i >= 0), default=-1)
    return text if index < 0 else text[:index]


def _search(pattern: regex.Pattern[str], text: str) -> bool:
    """Whether `pattern` occurs in `text`; a pattern that takes too long (a repository's
    pattern may backtrack without end) raises, and the hook is disabled with a warning."""
    try:
        return pattern.search(text, timeout=MATCH_TIMEOUT_S) is not None
    except TimeoutError:
        raise HookError(
            f"the pattern {pattern.pattern!r} took over {MATCH_TIMEOUT_S * 1000:.0f} ms"
        ) from None


def compile_markdown(name: str, text: str) -> Callable[[Prompt], None]:
    """The render of the Markdown hook `text`; a `HookError` listing every problem found."""
    conditions, actions, problems = _compile(text)
    if problems:
        raise HookError(f"{name}: " + "; ".join(problems))
    remind, system = actions.get("remind"), actions.get("system")
    only, without = actions.get("tools_only"), actions.get("tools_without")
    why = str(actions.get("why") or "")

    def narrow_tools(ctx: PromptContext, step: StepModifier) -> None:
        keep = [n for n in ctx.tools.names() if (only is None or n in only)]
        keep = [n for n in keep if without is None or n not in without]
        step("tools", keep, why=why or f"this step offers only {', '.join(keep) or 'no tools'}")

    def render(p: Prompt) -> None:
        if not all(condition(p.ctx) for condition in conditions):
            return
        if remind is not None:
            p.remind(str(remind))
        if system is not None:
            p.system(name, str(system))
        if only is not None or without is not None:
            p.effect(narrow_tools)

    return render


def check_markdown(name: str, text: str) -> list[str]:
    """What is wrong with the Markdown hook `text`, one line a problem; empty when it is fine."""
    return _compile(text)[2]


def _compile(text: str) -> tuple[list[Condition], dict[str, Value], list[str]]:
    """The conditions and actions of `text`, and every problem found, so one load says all."""
    try:
        sections, body = _front_matter(text)
    except HookError as exc:
        return [], {}, [str(exc)]
    problems: list[str] = []
    conditions = [
        condition
        for key, value in sections.get("when", {}).items()
        if (condition := _condition(key, value, problems)) is not None
    ]
    actions = sections.get("do", {})
    for key in [k for k in actions if k not in ACTIONS]:
        problems.append(f"do: unknown action `{key}` (one of {', '.join(ACTIONS)})")
    if "do" not in sections:
        problems.append("no `do:`: say what the hook does (remind, system, tools_only...)")
    elif not set(actions) & {"remind", "system", "tools_only", "tools_without"}:
        problems.append("`do:` has no action (remind, system, tools_only or tools_without)")
    for key in ("remind", "system", "why"):
        value = actions.get(key)
        if isinstance(value, list):
            problems.append(f"do: `{key}` takes text, not a list")
        elif key != "why" and value is not None and value.strip() in ("", "true"):
            actions[key] = body.strip()
            if not body.strip():
                problems.append(f"do: `{key}` is empty and the file has no body to use instead")
    for key in ("tools_only", "tools_without"):
        if key in actions and not (names := _names(actions[key])):
            problems.append(f"do: `{key}` names no tool")
        elif key in actions:
            actions[key] = names
    if "why" in actions and not {"tools_only", "tools_without"} & set(actions):
        problems.append("do: `why` goes with tools_only or tools_without")
    return conditions, actions, problems


def _condition(key: str, value: Value, problems: list[str]) -> Condition | None:
    """The test of one `when:` entry; None (with a problem added) when it is malformed."""
    if key not in CONDITIONS:
        problems.append(f"when: unknown condition `{key}` (one of {', '.join(CONDITIONS)})")
        return None
    if key in ("after_tool", "tool_succeeded", "tool_failed"):
        names = _names(value)
        if not names:
            problems.append(f"when: `{key}` names no tool (give a name, a list, or `any`)")
            return None
        ok = {"after_tool": None, "tool_succeeded": True, "tool_failed": False}[key]
        return lambda ctx: _last_call(ctx, names, ok=ok)
    if isinstance(value, list):
        problems.append(f"when: `{key}` takes one value, not a list")
        return None
    if key in ("every_steps", "step"):
        if not value.isdigit() or int(value) < 1:
            problems.append(f"when: `{key}` must be a whole number of at least 1, not {value!r}")
            return None
        n = int(value)
        if key == "step":
            return lambda ctx: ctx.step_number == n
        return lambda ctx: ctx.step_number % n == 0
    if key == "mode":
        if value not in MODES:
            problems.append(f"when: `mode` is plan or build, not {value!r}")
            return None
        return lambda ctx: ctx.mode == value
    if key in ("message_matches", "tool_args_match"):
        try:
            pattern = regex.compile(value, regex.IGNORECASE)
        except regex.error as exc:
            problems.append(f"when: `{key}` is not a valid regular expression ({exc})")
            return None
        if key == "tool_args_match":
            return lambda ctx: _recent(ctx) and any(_search(pattern, a) for a in _arguments(ctx))
        return lambda ctx: _search(pattern, ctx.user_message)
    if not value or value == "/":
        problems.append("when: `state_true` needs a key or a /json/pointer")
        return None
    parts = [p.replace("~1", "/").replace("~0", "~") for p in value[1:].split("/")]
    path = parts if value.startswith("/") else [value]
    return lambda ctx: bool(_lookup(ctx.task_state, path))


def _last_call(ctx: PromptContext, names: list[str], *, ok: bool | None) -> bool:
    """The last call was one of `names`, and succeeded or failed as `ok` asks (None: either)."""
    last = ctx.last_tool
    return (
        _recent(ctx)
        and last is not None
        and ("any" in names or last.name in names)
        and (ok is None or last.ok == ok)
    )


def _recent(ctx: PromptContext) -> bool:
    """Whether the last tool call was made in the step just before this one."""
    return ctx.last_tool is not None and ctx.last_tool.step == ctx.step_number - 1


def _arguments(ctx: PromptContext) -> list[str]:
    """The last call's argument values, each tested on its own so `^` and `$` anchor to one."""
    arguments = ctx.last_tool.arguments if ctx.last_tool is not None else {}
    return [v if isinstance(v, str) else json.dumps(v) for v in arguments.values()]


def _lookup(node: Any, path: list[str]) -> Any:
    """The value at `path` in the task state, None where there is none."""
    for part in path:
        if isinstance(node, Mapping):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _names(value: Value) -> list[str]:
    return [n for n in ([value] if isinstance(value, str) else value) if n]


def _front_matter(text: str) -> tuple[dict[str, dict[str, Value]], str]:
    """The `when:`/`do:` entries of the `---` block at the top, and the body after it."""
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[0].rstrip() != "---":
        raise HookError("no front matter: a Markdown hook starts with a `---` line, then `do:`")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        raise HookError("the front matter has no closing `---` line")
    sections: dict[str, dict[str, Value]] = {}
    section: dict[str, Value] | None = None
    parent = ""  # the section's name
    listing: str | None = None  # the key whose `- item` lines come next
    for number, line in enumerate(lines[1:end], start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        where = f"line {number}"
        if line[0] not in " \t":
            match = _KEY.fullmatch(stripped)
            if match is None or match.group(1) not in SECTIONS:
                raise HookError(f"{where}: expected when:, do: or description:, not {stripped!r}")
            key, rest = match.group(1), (match.group(2) or "").strip()
            if key in sections:
                raise HookError(f"{where}: `{key}:` is given twice")
            section, parent, listing = {}, key, None
            sections[key] = section
            if key == "description":  # for people, however many lines it takes
                section = None
            elif rest and not rest.startswith("#"):  # the one-line form, `when: step 1`
                sub = rest.split(None, 1)
                _put(section, sub[0].rstrip(":"), sub[1] if len(sub) > 1 else "", key, where)
            continue
        if section is None:
            if parent == "description":
                continue
            raise HookError(f"{where}: an indented line outside when: or do:")
        if stripped.startswith("- ") and listing is not None:
            items = section[listing]
            section[listing] = [*([] if isinstance(items, str) else items), _scalar(stripped[2:])]
            continue
        match = _KEY.fullmatch(stripped)
        if match is None:
            raise HookError(f"{where}: expected `key: value`, not {stripped!r}")
        key = match.group(1)
        _put(section, key, match.group(2) or "", parent, where)
        listing = key if section[key] == "" else None
    return sections, "\n".join(lines[end + 1 :])


def _put(section: dict[str, Value], key: str, raw: str, parent: str, where: str) -> None:
    if key in section:
        raise HookError(f"{where}: {parent}: `{key}` is given twice")
    try:
        section[key] = _value(raw)
    except HookError as exc:
        raise HookError(f"{where}: {parent}: `{key}`: {exc}") from None


def _value(raw: str) -> Value:
    """A value: an inline `[a, b]` list, a quoted string, or plain text."""
    raw = raw.strip()
    if raw[:1] in ("|", ">"):
        raise HookError("block values (| or >) are not supported: write the text in the body")
    if raw.startswith("["):
        inner, bracket, rest = raw[1:].partition("]")
        if not bracket or _uncommented(rest).strip():
            raise HookError(f"an unclosed or odd list: {raw!r}")
        return [item for part in inner.split(",") if (item := _scalar(part))]
    return _scalar(raw)


def _scalar(raw: str) -> str:
    raw = raw.strip()
    if raw.startswith('"'):
        try:
            value, end = json.JSONDecoder().raw_decode(raw)
        except ValueError:
            raise HookError(f"a badly quoted string: {raw}") from None
        if _uncommented(raw[end:]).strip():
            raise HookError(f"text after a quoted string: {raw}")
        return str(value)
    if raw.startswith("'"):
        match = re.match(r"'((?:[^']|'')*)'", raw)
        if match is None or _uncommented(raw[match.end() :]).strip():
            raise HookError(f"a badly quoted string: {raw}")
        return match.group(1).replace("''", "'")
    return _uncommented(raw).strip()
