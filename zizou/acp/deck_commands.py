"""The decks from an editor: `/decks` lists them, and why a deck file was left out; `/run DECK
[INPUT]` runs one directly, not through the model, as the app's `/run` does: its approvals are
asked of the editor as any are, its model calls count in the session's spending, and its edits
are not kept for undo (a run is no turn of the conversation)."""

from __future__ import annotations

from zizou.decks.display import output_text, signature
from zizou.decks.tools import input_from_text
from zizou.errors import UsageError
from zizou.session.kernel import Session

USAGE = "/run DECK [INPUT]: JSON for a deck that takes an object, text for one that takes text."
UNAVAILABLE = "Decks are not available in this session."


def decks_listing(session: Session) -> str:
    """What `/decks` says: each deck with its input and output, then the files left out."""
    if session.decks is None:
        return UNAVAILABLE
    found = session.decks.decks
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


async def run_deck(session: Session, text: str) -> str:
    """`/run DECK [INPUT]`: the deck's output, or what went wrong."""
    env = session.decks
    if env is None:
        return UNAVAILABLE
    name, _, rest = text.strip().partition(" ")
    if not name:
        return f"Which deck? The decks: {', '.join(sorted(env.decks.decks)) or 'none'}.\n{USAGE}"
    try:
        deck = session.find_deck(name, session.root)
        value = input_from_text(deck, rest.strip() or None)
    except UsageError as exc:
        return f"{exc}\n{USAGE}"
    title = f"/run {deck.name}"
    outcome = await session.run_deck(deck, value, title=title, kept_for_undo=False)
    if not outcome.ok:
        return f"{deck.name} failed — {outcome.code}: {outcome.message}"
    return f"{deck.name} returned:\n{output_text(outcome.output)}"


__all__ = ["decks_listing", "output_text", "run_deck"]
