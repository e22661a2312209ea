"""The layered system prompt, rendered afresh at every step from live state.

Layers: 1 BASE INSTRUCTIONS, 2 SESSION CONTEXT, 3 WORKSPACE (pinned files, re-read each step),
4 REPO MAP (the project's most relevant definitions within `map_tokens`, ranked towards the pinned
files and the names in the latest user message; 0 tokens turns it off). The compiled text is also
written, redacted, to `.zizou/compiled/prompt.md` so a person can read what the model got.
AGENTS.md / ZIZOU.md are read only as regular files inside the project (a symlink out of it is
skipped, and the SESSION CONTEXT says so).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.core.git_info import git_summary
from zizou.core.state import FileView, SessionState
from zizou.errors import PathError
from zizou.paths import COMPILED_PROMPT, write_project_file
from zizou.repomap import DEFAULT_MAP_TOKENS, MapRequest, repo_map_for
from zizou.tools import Registry
from zizou.tools.add_context import render_pin

# `/context light|default|max` -> the repo map's token budget.
MAP_TOKENS_BY_LEVEL = {"light": 0, "default": DEFAULT_MAP_TOKENS, "max": 8192}

INSTRUCTION_FILES = ("AGENTS.md", "ZIZOU.md")
INSTRUCTION_CAP = 20_000

BASE_INSTRUCTIONS = """\
You are zizou, a coding agent working in the user's project from their terminal.
Work the way a careful senior engineer would: understand before you change, change only what
the task needs, and check your work.

- Explore with list_dir, glob and grep; read files with read_file before you edit them.
- Edit with edit_file: old_string must match the file exactly once (copy it from read_file's
  output without the line-number prefix), or pass replace_all. Create new files with write_file.
- Run tests, linters and builds with run_bash; the user approves each command unless a rule
  allows it. Prefer short, non-interactive commands; nothing reads from stdin.
- All paths are relative to the workspace root and must stay inside it.
- If a tool returns an error, read it and adjust; do not repeat the same call unchanged.
- When you are done, answer briefly: what you changed, and how you checked it.
"""


@dataclass(frozen=True)
class Section:
    name: str
    text: str  # empty when the layer is off
    note: str = ""  # why a layer is off or short


@dataclass(frozen=True)
class CompiledPrompt:
    sections: tuple[Section, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(f"# {s.name}\n\n{s.text.rstrip()}" for s in self.sections if s.text)

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
        # Where run_bash's commands run, in the model's words (set by the runtime).
        self.commands_note = "commands run with bash -c"
        self.last: CompiledPrompt | None = None

    def set_context_level(self, level: str) -> None:
        """`/context light|default|max`: the repo map's budget (light turns it off)."""
        self.map_tokens = MAP_TOKENS_BY_LEVEL[level]

    def render(self) -> CompiledPrompt:
        compiled = CompiledPrompt(
            (
                Section("BASE INSTRUCTIONS", BASE_INSTRUCTIONS),
                Section("SESSION CONTEXT", self._session_context()),
                self._workspace(),
                self._repo_map(),
            )
        )
        self.last = compiled
        if self.write_compiled:
            text = compiled.text if self.redact is None else self.redact(compiled.text)
            _write_compiled(self.root, text)
        return compiled

    def render_text(self) -> str:
        return self.render().text

    def _session_context(self) -> str:
        lines = [
            f"Workspace root: {self.root}",
            f"OS: {platform.system()} {platform.release()}",
            f"Shell: {os.environ.get('SHELL', 'unknown')} ({self.commands_note})",
            f"Date: {self.today().isoformat()}",
            f"Git: {git_summary(self.root)}",
            "Paths: give paths relative to the workspace root; paths outside it are refused.",
            "",
            "Tools:",
            *(f"- {tool.name}: {tool.summary}" for tool in self.registry),
        ]
        instructions, skipped = _instructions(self.root)
        lines += [f"Note: {note}" for note in skipped]
        if instructions:
            name, text = instructions
            lines += ["", f"Project instructions from {name}:", text]
        return "\n".join(lines)

    def _workspace(self) -> Section:
        views = self.state.views
        if not views:
            return Section("WORKSPACE", "", note="no pinned files")
        parts = [render_pin(self.root, view, seen=self._seen(view)) for view in views]
        return Section("WORKSPACE", "\n\n".join(parts), note=f"{len(parts)} pinned")

    def _seen(self, view: FileView) -> Callable[[Path, bytes], None]:
        """Records that the model is shown `view`: a pinned file can be edited as it is."""
        return lambda path, data: self.state.record_view(path, data, view)

    def _repo_map(self) -> Section:
        if self.map_tokens <= 0:
            return Section("REPO MAP", "", note="off: /context light")
        request = MapRequest(
            max_tokens=self.map_tokens,
            focus=tuple(view.path for view in self.state.views),
            message=self.mentions(),
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


def _instructions(root: Path) -> tuple[tuple[str, str] | None, list[str]]:
    """The first of AGENTS.md / ZIZOU.md that is a regular file inside the root, read by fd,
    and notes on the ones skipped (a symlink out of the project is never read)."""
    skipped: list[str] = []
    for name in INSTRUCTION_FILES:
        try:
            path = confined.resolve(root, name)
            info = confined.stat(root, path)
            if info is None:
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(f"{name} skipped: it is not a regular file")
                continue
            data = confined.read_head(root, path, INSTRUCTION_CAP * 4)
        except PathError as err:
            skipped.append(f"{name} skipped: {err}")
            continue
        text = data.decode("utf-8", errors="replace")
        if len(text) > INSTRUCTION_CAP or info.st_size > len(data):
            text = text[:INSTRUCTION_CAP] + f"\n[... {name} truncated ...]"
        return (name, text), skipped
    return None, skipped


def _write_compiled(root: Path, text: str) -> None:
    try:
        write_project_file(root, COMPILED_PROMPT, text.encode("utf-8") + b"\n", durable=False)
    except (OSError, PathError):
        pass  # a read-only project, or an unsafe `.zizou/`: the agent runs on without the copy


__all__ = [
    "BASE_INSTRUCTIONS",
    "MAP_TOKENS_BY_LEVEL",
    "CompiledPrompt",
    "PromptBuilder",
    "Section",
]
