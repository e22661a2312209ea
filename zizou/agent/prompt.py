"""The layered system prompt, rendered afresh at every step from live state.

Layers run from stable to volatile, so that a provider's prompt cache keeps the prefix from step
to step: BASE INSTRUCTIONS, SESSION CONTEXT (root, OS, shell, the tool guide, the instruction
files of the project root and the user's agents, read once per turn: `instruction_files`),
INSTRUCTIONS, REPO MAP (the project's most relevant definitions within `map_tokens`, ranked
towards the open files and the names in the turn's user message; rendered once per turn, so an
edit does not change it mid-turn; 0 tokens turns it off) — the stable prefix, marked cacheable
for providers that take the mark — then NESTED INSTRUCTIONS (the instruction files of the
subfolders the model has read or edited files in), HOOKS (what hooks add this step), TASK STATE,
WORKSPACE (the open windows, found again at every step) and LIVE CONTEXT (the date, the git
summary). The compiled text is also written, redacted, to `.zizou/compiled/prompt.md` so a person
can read what the model got. Instruction files are read only as regular files inside their
folder (a symlink out of it, or to a secret file, is skipped, and the prompt says so).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.agent.git_info import git_summary
from zizou.agent.workspace_layer import WorkspaceLayer, budget_tokens
from zizou.contracts.instruction_files import (
    InstructionReader,
    nested_instructions,
    root_instructions,
)
from zizou.contracts.instructions import InstructionSet
from zizou.contracts.state import SessionState
from zizou.errors import PathError
from zizou.paths import COMPILED_PROMPT, write_project_file
from zizou.repomap import DEFAULT_MAP_TOKENS, MapRequest, repo_map_for
from zizou.tools import Registry

# `/context light|default|max` -> the repo map's token budget.
MAP_TOKENS_BY_LEVEL = {"light": 0, "default": DEFAULT_MAP_TOKENS, "max": 8192}

BASE_INSTRUCTIONS = """\
You are zizou, a coding agent working in the user's project from their terminal.
Work the way a careful senior engineer would: understand before you change, change only what
the task needs, and check your work.

- Explore with list_dir, glob and grep; read files with read_file before you edit them.
- Keep the code you work on open with open_in_workspace (a file, or a window of it): the
  WORKSPACE section shows it current at every step. Close windows you no longer need.
- Edit with edit_file, several edits to one file in one call; replace_window rewrites exactly
  the lines of an open window. Create new files with write_file.
- Run tests, linters and builds with run_bash; the user approves each command unless a rule
  allows it. Prefer short, non-interactive commands; start servers and watchers in the
  background.
- For work of more than a step or two, keep the TASK STATE current with update_state: the goal,
  a plan whose steps you mark in_progress and done as you go, notes worth keeping.
- Answer general questions (concepts, languages, this conversation) directly, without tools.
- Call tools only by their exact names as listed, with one JSON object of arguments.
- If a tool returns an error, read it and adjust; do not repeat the same call unchanged.
- When you are done, answer briefly: what you changed, and how you checked it.
"""


@dataclass(frozen=True)
class Section:
    name: str
    text: str  # empty when the layer is off
    note: str = ""  # why a layer is off or short


STABLE_LAYERS = ("BASE INSTRUCTIONS", "SESSION CONTEXT", "INSTRUCTIONS", "REPO MAP")


@dataclass(frozen=True)
class CompiledPrompt:
    sections: tuple[Section, ...]
    windows: tuple[str, ...] = ()  # the workspace's windows, one line each (for the log)

    @property
    def text(self) -> str:
        return "\n\n".join(_block(s) for s in self.sections if s.text)

    @property
    def stable_chars(self) -> int:
        """How long the stable prefix is: the stable layers, and the break after them."""
        stable = [_block(s) for s in self.sections if s.text and s.name in STABLE_LAYERS]
        if not stable:
            return 0
        size = len("\n\n".join(stable))
        rest = any(s.text and s.name not in STABLE_LAYERS for s in self.sections)
        return size + 2 if rest else size

    def breakdown(self) -> list[tuple[str, int, str]]:
        """(layer, characters, note) for each layer, including the ones that are off."""
        return [(s.name, len(s.text), s.note) for s in self.sections]


class PromptBuilder:
    def __init__(
        self,
        root: Path,
        registry: Registry,
        state: SessionState,
        *,
        write_compiled: bool = True,
        today: Callable[[], dt.date] = dt.date.today,
        map_tokens: int = DEFAULT_MAP_TOKENS,
        mentions: Callable[[], str] | None = None,
        redact: Callable[[str], str] | None = None,
        context_window: int | None = None,
        instructions: InstructionSet | None = None,
        commands_note: str = "commands run with bash -c",
    ) -> None:
        self.root = root
        self.registry = registry
        self.state = state
        self.write_compiled = write_compiled
        self.today = today
        self.map_tokens = map_tokens  # 0 turns the REPO MAP layer off
        # The latest user message, whose code names and file names steer the map.
        self.mentions: Callable[[], str] = mentions or state.conversation.latest_user_text
        # Applied to the copy written to `.zizou/compiled/prompt.md`, never to what the model gets.
        self.redact = redact
        # Where run_bash's commands run, in the model's words (the sandbox, or none).
        self.commands_note = commands_note
        self.context_window = context_window  # the model's, in tokens: the workspace's budget
        self.workspace = WorkspaceLayer(root, state)
        self.instructions = instructions or InstructionSet()
        self.last: CompiledPrompt | None = None
        self._stable: tuple[Section, Section] | None = None  # this turn's context and map
        self._root_files = InstructionReader()  # the instruction files the context sent

    def set_context_level(self, level: str) -> None:
        """`/context light|default|max`: the repo map's budget (light turns it off)."""
        self.map_tokens = MAP_TOKENS_BY_LEVEL[level]
        self._stable = None

    def new_turn(self) -> None:
        """A user turn begins: the session context (AGENTS.md included) is read again and the
        repo map ranked afresh for its message; both are kept for the turn's steps, so the
        prompt's stable prefix stays byte-identical while the turn runs."""
        self._stable = None

    def render(
        self,
        hooks: tuple[tuple[str, str], ...] = (),
        *,
        preview: bool = False,
        left_out: int = 0,
    ) -> CompiledPrompt:
        """Every layer, as it is now; `hooks` are the (name, text) systems hooks add this step.
        A `preview` (for a person: `/prompt`, the sidebar) leaves the workspace's state as the
        model last saw it. `left_out`: how many earlier user turns the history window left out
        of this request (LIVE CONTEXT says so)."""
        workspace = self.workspace.render(budget_tokens(self.context_window), preview=preview)
        stable = self._stable
        if stable is None:
            stable = (Section("SESSION CONTEXT", self._session_context()), self._repo_map())
            if not preview:  # a preview between turns must not fix the next turn's map
                self._stable = stable
        context, repo_map = stable
        compiled = CompiledPrompt(
            (
                Section("BASE INSTRUCTIONS", BASE_INSTRUCTIONS),
                context,
                self._instructions_layer(),
                repo_map,
                self._nested_instructions(),
                _hooks(hooks),
                self._task_state(preview),
                Section("WORKSPACE", workspace.text, note=workspace.note),
                Section("LIVE CONTEXT", self._live_context(left_out)),
            ),
            workspace.listing,
        )
        self.last = compiled
        if self.write_compiled:
            text = compiled.text if self.redact is None else self.redact(compiled.text)
            _write_compiled(self.root, text)
        return compiled

    def render_text(self) -> str:
        return self.render().text

    def preview(self) -> CompiledPrompt:
        return self.render(preview=True)

    def _session_context(self) -> str:
        lines = [
            f"Project root: {self.root}",
            f"OS: {platform.system()} {platform.release()}",
            f"Shell: {os.environ.get('SHELL', 'unknown')} ({self.commands_note})",
            "Paths: give paths relative to the project root; paths outside it are refused.",
            "Lines are numbered from 1, and a range of lines includes both ends.",
            "",
            "Tools:",
            *(f"- {tool.name}: {tool.summary}" for tool in self.registry if tool.advertised),
        ]
        reader = root_instructions(self.root)
        self._root_files = reader
        lines += [f"Note: {note}" for note in reader.notes]
        if reader.files:
            lines += ["", "Instruction files (later ones are more specific and win a conflict):"]
        for found in reader.files:
            lines += ["", found.heading, found.text.rstrip()]
        return "\n".join(lines)

    def _nested_instructions(self) -> Section:
        """The instruction files of the subfolders the model read or edited files in: after
        the stable prefix, so one that starts to apply mid-turn leaves the prefix alone."""
        with self.state.lock:
            seen = list(self.state.ledger.hashes)
            worked_in = list(self.state.workspace.paths())
        for path in seen:
            try:
                worked_in.append(confined.relative(self.root, path))
            except (ValueError, PathError):
                continue
        text = nested_instructions(self.root, worked_in, self._root_files)
        return Section("NESTED INSTRUCTIONS", text, note="" if text else "none")

    def _live_context(self, left_out: int) -> str:
        lines = [f"Date: {self.today().isoformat()}", f"Git: {git_summary(self.root)}"]
        if left_out:
            turns = f"{left_out} earlier user turn{'s' * (left_out != 1)}"
            lines.append(
                f"History: {turns} of this session {'are' if left_out != 1 else 'is'} left out "
                "of the conversation below (the session keeps them); the task state above "
                "carries what matters from them."
            )
        return "\n".join(lines)

    def _instructions_layer(self) -> Section:
        catalogue = self.instructions.catalogue()
        if not catalogue:
            return Section("INSTRUCTIONS", "", note="none")
        parts = [catalogue]
        for name in self.state.sticky:
            if (found := self.instructions.get(name)) is not None:
                parts.append(f"## {found.name} (kept for this session)\n\n{found.body.strip()}")
        sticky = len(parts) - 1
        note = f"{len(self.instructions)} listed" + (f", {sticky} kept" if sticky else "")
        return Section("INSTRUCTIONS", "\n\n".join(parts), note=note)

    def _task_state(self, preview: bool) -> Section:
        task = self.state.task
        if task is None:
            why = self.state.task_problem or "no task state"
            return Section("TASK STATE", "", note=f"off: {why}")
        schema = task.schema
        origin = "built in" if schema.source == "built-in" else f"from {schema.source}"
        typescript = schema.typescript().rstrip()
        # The built-in state, empty: its shape; each field is told once it is set. A project's
        # schema is always shown whole, with its value (its zero may mean something).
        if schema.source == "built-in" and task.snapshot() == schema.zero():
            lines = [
                "The task's state is empty: for work of more than a step or two, set it with "
                "update_state (a JSON Patch, or a merge object) and keep it current; each field "
                f"is described once it is set. Its shape ({origin}):",
                "```ts",
                _without_comments(typescript),
                "```",
            ]
            return Section("TASK STATE", "\n".join(lines), note="empty")
        lines = [
            "The task's state: keep it current with update_state as you work (a JSON Patch, or "
            f"a merge object). Its schema ({origin}):",
            "```ts",
            typescript,
            "```",
            "Its value now:",
            task.compact_json(),
        ]
        edits = [] if preview else task.take_user_edits()
        if edits:
            lines.append("The user changed it since your last step:")
            lines += [f"- {edit.text()}" for edit in edits]
        return Section("TASK STATE", "\n".join(lines), note=f"{len(task.compact_json()):,} chars")

    def _repo_map(self) -> Section:
        if self.map_tokens <= 0:
            return Section("REPO MAP", "", note="off: /context light")
        with self.state.lock:
            windows = self.state.workspace.windows
        request = MapRequest(
            max_tokens=self.map_tokens,
            focus=tuple(dict.fromkeys(w.path for w in windows)),
            message=self.mentions(),
            hide=tuple(dict.fromkeys(w.path for w in windows if w.spec.is_whole)),
        )
        try:
            result = repo_map_for(self.root).render(request)
        except Exception as exc:  # the map is an aid: a failure must not stop the turn
            return Section(
                "REPO MAP", "", note=f"off: the map failed ({type(exc).__name__}: {exc})"
            )
        if not result.text:
            return Section("REPO MAP", "", note="off: no source files to map")
        return Section(
            "REPO MAP", result.text, note=f"budget {self.map_tokens}: {result.stats.summary()}"
        )


def _hooks(systems: tuple[tuple[str, str], ...]) -> Section:
    if not systems:
        return Section("HOOKS", "", note="none")
    text = "\n\n".join(f"## {name}\n{body.strip()}" for name, body in systems)
    return Section("HOOKS", text, note=f"{len(systems)} from hooks")


def _block(section: Section) -> str:
    return f"# {section.name}\n\n{section.text.rstrip()}"


def _write_compiled(root: Path, text: str) -> None:
    try:
        write_project_file(root, COMPILED_PROMPT, text.encode("utf-8") + b"\n", durable=False)
    except (OSError, PathError):
        pass  # a read-only project, or an unsafe `.zizou/`: the agent runs on without the copy


def _without_comments(typescript: str) -> str:
    """The TypeScript without its `/** ... */` comments (each on lines of its own)."""
    kept: list[str] = []
    inside = False
    for line in typescript.splitlines():
        stripped = line.strip()
        if not inside and stripped.startswith("/**"):
            inside = not stripped.endswith("*/")
            continue
        if inside:
            inside = not stripped.endswith("*/")
            continue
        kept.append(line)
    return "\n".join(kept)


__all__ = [
    "BASE_INSTRUCTIONS",
    "MAP_TOKENS_BY_LEVEL",
    "CompiledPrompt",
    "PromptBuilder",
    "Section",
]
