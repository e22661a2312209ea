"""Decks: sub-agents written as files, each with its prompt, tools, input and output schemas,
and actions that call other decks.

A deck is `NAME.deck.md` (YAML front matter and a Markdown body), `NAME.deck.py` (a module
setting `DECK = Deck(...)`, see `zizou.decks.api`) or a directory deck `NAME/deck.md`; a card
(`NAME.card.md`) adds its body, tools and actions to the decks that embed it. `spec` holds the
data model, `loader` finds and checks the files, `command` is `zizou decks`. Nothing is
imported here, so importing the package stays cheap.
"""
