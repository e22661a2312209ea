"""Sub-agents kept as Markdown files by other agents, loaded as decks.

A Claude Code user keeps `.claude/agents/*.md`, an opencode user `.opencode/agent/*.md`: a
front matter (`name`, `description`, `tools`, `model`) and a body that is the sub-agent's
prompt. Each becomes a deck whose input and output are text, so the main agent can call it as a
tool when its description fits, with the deck guardrails. `tools` (Claude's names, `Read, Grep,
Bash`, or zizou's) limits what it may use; without it the deck gets zizou's read-only set. A
`model` zizou cannot route (Claude's `sonnet`, say) falls back to the session's model with a
warning, and `inherit` is the session's model. zizou's own decks win a clash of names. The files
come with the repository: they are read through the path layer, like every deck file.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from zizou import confined
from zizou.contracts.file_commands import checked_front_matter
from zizou.decks.spec import (
    DECK_TOOLS,
    DEFAULT_TOOLS,
    NAME_RE,
    STRING_SCHEMA,
    Deck,
    DeckSet,
    Guardrails,
)
from zizou.errors import PathError, ZizouError

AGENT_FOLDERS = (".claude/agents", ".opencode/agent")
MAX_AGENT_BYTES = 256 * 1024
# Claude Code's tool names -> zizou's.
CLAUDE_TOOLS = {
    "read": "read_file",
    "write": "write_file",
    "edit": "edit_file",
    "multiedit": "edit_file",
    "grep": "grep",
    "glob": "glob",
    "ls": "list_dir",
    "bash": "run_bash",
}
GUARDRAILS = Guardrails(passes=20, timeout_s=600)


def with_agent_decks(root: Path, found: DeckSet) -> DeckSet:
    """`found`, with the decks of the project's agent files added and their warnings."""
    agents, warnings = agent_decks(root, set(found.decks))
    found.decks.update((deck.name, deck) for deck in agents)
    found.warnings.extend(warnings)
    return found


def agent_decks(root: Path, taken: set[str]) -> tuple[list[Deck], list[str]]:
    """The decks of the project's agent files, and warnings naming each file left out or
    changed; `taken`: the names of zizou's own decks, which win."""
    decks: list[Deck] = []
    warnings: list[str] = []
    base = confined.real_root(root)
    for folder in AGENT_FOLDERS:
        try:
            entries = confined.scandir(base, folder)
        except PathError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            if not entry.name.endswith(".md") or entry.is_dir:
                continue
            rel = f"{folder}/{entry.name}"
            try:
                deck = _agent_deck(base, rel, warnings)
            except (PathError, ValueError) as err:
                warnings.append(f"{err}; the agent is not used")
                continue
            if deck.name in taken:
                warnings.append(f"{rel}: the deck {deck.name} is zizou's own, which wins")
                continue
            taken.add(deck.name)
            decks.append(deck)
    return decks, warnings


def _agent_deck(base: Path, rel: str, warnings: list[str]) -> Deck:
    path = confined.resolve_unasked(base, rel)
    data = confined.read_bytes(base, confined.relative(base, path), MAX_AGENT_BYTES)
    fields, body = checked_front_matter(data.decode("utf-8", errors="replace"), rel)
    name = fields.get("name") or Path(rel).stem
    if not re.fullmatch(NAME_RE, name):
        raise ValueError(f"{rel}: {name!r} is not a deck name (letters, digits, _ and -)")
    description = fields.get("description", "")
    if not description:
        raise ValueError(f"{rel}: no description, so the model could not know when to call it")
    tools = _tools(rel, fields.get("tools", ""), warnings)
    return Deck(
        name=name,
        path=path,
        origin="project",
        description=description,
        input_schema=STRING_SCHEMA,
        output_schema=STRING_SCHEMA,
        body=body.strip(),
        model=_model(rel, fields.get("model", ""), warnings),
        tools=tools,
        guardrails=GUARDRAILS,
        sha256=hashlib.sha256(data).hexdigest(),
        reads_only=set(tools) <= set(DEFAULT_TOOLS),
    )


def _tools(rel: str, listed: str, warnings: list[str]) -> tuple[str, ...]:
    """zizou's names for the `tools` listed (comma- or space-separated)."""
    if not listed.strip():
        return DEFAULT_TOOLS
    names: list[str] = []
    for word in re.split(r"[,\s\[\]]+", listed):
        word = word.strip("'\"")
        if not word:
            continue
        mapped = CLAUDE_TOOLS.get(word.lower(), word)
        if mapped in DECK_TOOLS:
            names.append(mapped)
        else:
            warnings.append(f"{rel}: the tool {word} has no zizou equivalent; left out")
    return tuple(dict.fromkeys(names))


def _model(rel: str, wanted: str, warnings: list[str]) -> str | None:
    """The model id the deck runs on, None for the session's."""
    if not wanted or wanted == "inherit":
        return None
    from zizou.providers.model_ids import check_model_id

    try:
        check_model_id(wanted)
    except ZizouError as err:
        warnings.append(f"{rel}: the model {wanted} is not used ({err}); the session's runs it")
        return None
    return wanted


__all__ = ["AGENT_FOLDERS", "agent_decks", "with_agent_decks"]
