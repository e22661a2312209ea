"""The decks from an editor: `/decks` lists them, and why a deck file was left out; `/run DECK
[INPUT]` runs one directly, not through the model, as the app's `/run` does: its approvals are
asked of the editor as any are, its model calls count in the session's spending, and its edits
are not kept for undo (a run is no turn of the conversation)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from zizou.decks.command import signature
from zizou.decks.refs import resolve_or_load
from zizou.decks.tools import Caller, action_of, input_from_text
from zizou.errors import UsageError
from zizou.hooks.sources import TrustStore
from zizou.paths import user_config_dir
from zizou.runtime import Runtime

USAGE = "/run DECK [INPUT]: JSON for a deck that takes an object, text for one that takes text."
UNAVAILABLE = "Decks are not available in this session."


def decks_listing(runtime: Runtime) -> str:
    """What `/decks` says: each deck with its input and output, then the files left out."""
    if runtime.decks is None:
        return UNAVAILABLE
    found = runtime.decks.decks
    decks = sorted(found.decks.values(), key=lambda d: d.name)
    lines = [f"Decks ({len(decks)}):"] if decks else ["No decks here."]
    for deck in decks:
        about = f" · {deck.description}" if deck.description else ""
        lines.append(f"  {deck.name} · {signature(deck)}{about}")
    if found.problems:
        lines.append(f"Left out ({len(found.problems)}):")
        lines += [f"  {problem}" for problem in found.problems]
    lines.append(USAGE if decks else "`zizou decks new NAME` writes one in .zizou/decks/.")
    return "\n".join(lines)


async def run_deck(runtime: Runtime, text: str) -> str:
    """`/run DECK [INPUT]`: the deck's output, or what went wrong."""
    env = runtime.decks
    if env is None:
        return UNAVAILABLE
    name, _, rest = text.strip().partition(" ")
    if not name:
        return f"Which deck? The decks: {', '.join(sorted(env.decks.decks)) or 'none'}.\n{USAGE}"
    root = runtime.ctx.root
    try:
        config_dir = user_config_dir()
        trust = TrustStore(config_dir)
        env.decks, deck = resolve_or_load(env.decks, name, root, root, config_dir, trust=trust)
        value = input_from_text(deck, rest.strip() or None)
    except UsageError as exc:
        return f"{exc}\n{USAGE}"
    env.begin_turn(f"/run {deck.name}", [])  # the cap on model calls is per run
    gates, env.gates = env.gates, dataclasses.replace(env.gates, changes=None)
    try:
        outcome = await env.call(deck, action_of(deck), value, Caller(), None)
    finally:
        env.gates = gates
    if not outcome.ok:
        return f"{deck.name} failed — {outcome.code}: {outcome.message}"
    return f"{deck.name} returned:\n{output_text(outcome.output)}"


def output_text(output: Any) -> str:
    """A deck's output: text as it is, anything else as indented JSON."""
    return output if isinstance(output, str) else json.dumps(output, indent=2, ensure_ascii=False)


__all__ = ["decks_listing", "output_text", "run_deck"]
