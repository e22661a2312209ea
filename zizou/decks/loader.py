"""Finding deck files and loading them into checked `Deck`s.

Three folders hold decks, in override order: the project's `.zizou/decks/`, the user's
`<config dir>/decks/` and the package's built-in ones; a deck given by its path (`zizou run
FILE`) comes first, and its folder is a root for its actions. A name found again in a later
folder is overridden, with a warning. Only one level is read: `NAME.deck.md`, `NAME.deck.py`
and directory decks `NAME/deck.md`; cards (`NAME.card.md`) are read when a file embeds them.

A bad file is a `Problem` naming its line and is left out, and so is every deck that calls it;
the other decks still load. The project's files come with the repository: they are read through
`zizou.confined` (a symlink, a FIFO or a file over 256 KiB is refused), an action or embed path
may not leave the deck folders, and a project's Python deck runs only once trusted.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.decks.agent_files import with_agent_decks
from zizou.decks.files import (
    CARD_SUFFIXES,
    DECK_SUFFIXES,
    DIR_DECK,
    Bad,
    Root,
    deck_name_of,
    discover,
    file_kind,
    instructions_dir,
    read_file,
    roots_for,
)
from zizou.decks.frontmatter import (
    ActionEntry,
    CardFront,
    FileCheck,
    Front,
    FrontMatter,
    FrontMatterError,
    activity_problem,
    first_sentence,
    name_problem,
    parse,
    schema_problem,
)
from zizou.decks.schemas import merged_fragment
from zizou.decks.spec import (
    DECK_TOOLS,
    DEFAULT_TOOLS,
    MCP_TOOL_RE,
    READ_ONLY_TOOLS,
    STRING_SCHEMA,
    Action,
    Deck,
    DeckSet,
    Problem,
    shown_path,
)
from zizou.errors import PathError

if TYPE_CHECKING:
    from zizou.hooks.runtime import HookSource
    from zizou.hooks.sources import TrustStore

ORIGIN_WORDS = {"project": "project", "user": "user's", "builtin": "built-in", "path": "given"}
SCHEMAS = ("input", "output", "state")


@dataclass(frozen=True)
class _Share:
    """What a file adds to the decks embedding it: body texts, actions and tools."""

    bodies: tuple[str, ...]
    actions: tuple[Action, ...]
    tools: frozenset[str]
    # The cards' schema fragments, in embed order: ("input" | "output", fragment, file, line).
    fragments: tuple[tuple[str, dict[str, Any], Path, int], ...] = ()


class Builder:
    """Loads deck files into `Deck`s, each file once; children and embeds on the way."""

    def __init__(
        self,
        roots: list[Root],
        trust: TrustStore | None,
        trust_all: bool,
        problems: list[Problem],
        warnings: list[str],
    ) -> None:
        self.roots = roots
        self.trust = trust
        self.trust_all = trust_all
        self.problems = problems
        self.warnings = warnings
        self._decks: dict[Path, Deck | None] = {}
        self._why: dict[Path, str] = {}  # why a file gave no deck, said to its callers
        self._shares: dict[Path, _Share | None] = {}
        self._loading: list[Path] = []

    def loaded(self) -> dict[Path, Deck]:
        return {path: deck for path, deck in self._decks.items() if deck is not None}

    def root_of(self, path: Path) -> Root | None:
        """The most specific root holding `path`. A file of the project is the project's
        whatever root reached it (a deck file given by a path above the project): read
        through `zizou.confined`, and its Python run only once trusted."""
        holding = [root for root in self.roots if root.holds(path)]
        if not holding:
            return None
        root = max(holding, key=lambda r: len(r.folder.parts))
        project = next((r.base for r in self.roots if r.origin == "project"), None)
        if root.base is None and project is not None and path.is_relative_to(project):
            root = dataclasses.replace(root, base=project)
        return root

    def load(self, path: Path) -> Deck | None:
        """The deck of the file `path`, or None (its problems recorded, once)."""
        if path in self._decks:
            return self._decks[path]
        self._loading.append(path)
        check = FileCheck(path)
        try:
            deck = self._load(path, check)
        except Bad as bad:
            check.problem(bad.line, str(bad))
            deck = None
        finally:
            self._loading.pop()
        if not check.ok:
            deck = None
            self._why.setdefault(path, "has problems")
        self.problems += check.problems
        self._decks[path] = deck
        return deck

    def _load(self, path: Path, check: FileCheck) -> Deck | None:
        root = self.root_of(path)
        if root is None:
            raise Bad("not in a deck folder")
        if path.name.endswith(CARD_SUFFIXES):
            raise Bad("a card, not a deck: embed it (`embeds:`) instead")
        text, digest = read_file(path, root)
        if path.name.endswith(".deck.py"):
            front = self._python(path, root, text, digest)
            if front is None:
                return None
        else:
            front = _parse(text)
        deck = self._deck(path, root, front, digest, check)
        if deck is not None and path.name.endswith(".deck.py"):
            deck = dataclasses.replace(deck, source=text)  # what a compute deck's worker runs
        return deck

    def _python(self, path: Path, root: Root, text: str, digest: str) -> FrontMatter | None:
        """The front matter of a Python deck, once its module ran; None when untrusted."""
        from zizou.decks.api import run_module, source_of

        source = source_of(path, root, text, digest)
        if source is not None and not self._trusted(source):
            self.warnings.append(
                f"the Python deck {source.name} is not loaded: it is the project's code, not "
                f"trusted as it is; read it, then `zizou decks trust {deck_name_of(path)}` (or "
                "start with --trust-hooks)"
            )
            self._why[path] = "is a Python deck not trusted yet"
            return None
        return run_module(path, text, digest)

    def _trusted(self, source: HookSource) -> bool:
        return self.trust_all or (self.trust is not None and self.trust.is_trusted(source))

    def _deck(
        self, path: Path, root: Root, front: FrontMatter, digest: str, check: FileCheck
    ) -> Deck | None:
        meta = _validate(front, Front, check)
        if meta is None:
            return None
        assert isinstance(meta, Front)
        name = _checked_name(path, meta, front, check)
        schemas = {key: self._schema(getattr(meta, key), key, front, check) for key in SCHEMAS}
        tools = _tools(meta.tools, front, check)
        share = self._share(path, front, meta, check, stack=(path,))
        handlers = self._handlers(path, meta, front, check)
        folder = path.parent if path.name == DIR_DECK else None
        state = schemas["state"] or (read_state_schema(folder, root, check) if folder else None)
        if share is None or not check.ok:
            return None
        for key, fragment, card, line in share.fragments:
            merged = merged_fragment(schemas[key], fragment)
            if merged is None:
                check.problem(
                    front.line_of("embeds"),
                    f"{card.name} (line {line}) adds to `{key}`, but {path.name} declares no "
                    f"object `{key}` for it to add to",
                )
                return None
            schemas[key] = merged
        all_tools = tuple(dict.fromkeys([*tools, *sorted(share.tools)]))
        children = [self._decks.get(action.target) for action in share.actions]
        reads_only = set(all_tools) <= READ_ONLY_TOOLS and all(
            child is not None and child.reads_only for child in children
        )
        deck = Deck(
            name=name,
            path=path,
            origin=root.origin,
            description=(meta.description or first_sentence(front.body)).strip(),
            input_schema=schemas["input"],
            output_schema=schemas["output"],
            body="\n\n".join(text.strip() for text in share.bodies if text.strip()),
            model=meta.model,
            mode=meta.mode,
            tools=all_tools,
            actions=share.actions,
            activity=meta.activity or name,
            guardrails=meta.guardrails,
            handlers=handlers,
            suspense_delay_ms=meta.suspense_delay_ms,
            state_schema=state,
            instructions_dir=instructions_dir(folder, root) if folder else None,
            line=front.line,
            sha256=digest,
            reads_only=reads_only,
        )
        if not set(all_tools) <= READ_ONLY_TOOLS and deck.guardrails.passes <= 3:
            self.warnings.append(
                f"{name} has tools and passes={deck.guardrails.passes}; a deck with tools "
                "usually needs more (guardrails.passes)"
            )
        return deck

    def _schema(
        self, value: Any, key: str, front: FrontMatter, check: FileCheck
    ) -> dict[str, Any] | None:
        if value is None:
            return None
        if value == "string":
            return dict(STRING_SCHEMA)
        why = schema_problem(value)
        if why is not None:
            check.problem(front.line_of(key), f"`{key}` is {why}")
            return None
        return dict(value)

    def _share(
        self,
        path: Path,
        front: FrontMatter,
        meta: CardFront,
        check: FileCheck,
        stack: tuple[Path, ...],
    ) -> _Share | None:
        """The body, actions and tools of a file with everything it embeds: embeds in order,
        a later one overriding an earlier one's action of the same name, the file's own last."""
        bodies: list[str] = [front.body]
        actions: dict[str, Action] = {}
        fragments: list[tuple[str, dict[str, Any], Path, int]] = []
        tools: set[str] = set(meta.tools or ()) if isinstance(meta, CardFront) else set()
        ok = True
        for index, raw in enumerate(meta.embeds):
            line = front.line_of("embeds", index)
            target = self._target(path, raw, line, "embed", check)
            if target is None:
                ok = False
                continue
            if target in stack:
                names = [p.name for p in stack[stack.index(target) :]]
                check.problem(line, "embed cycle: " + " -> ".join([*names, target.name]))
                ok = False
                continue
            embedded = self._embedded(target, stack)
            if embedded is None:
                check.problem(line, f"the embed {raw} {self._why.get(target, 'has problems')}")
                ok = False
                continue
            bodies += embedded.bodies
            actions.update((action.name, action) for action in embedded.actions)
            tools |= embedded.tools
            fragments += embedded.fragments
        own: set[str] = set()
        for index, entry in enumerate(meta.actions):
            line = front.line_of("actions", index)
            action = self._action(path, entry, line, check)
            if action is None:
                ok = False
            elif action.name in own:
                check.problem(line, f"two actions are named {action.name}: rename one (`name:`)")
                ok = False
            else:
                own.add(action.name)
                actions[action.name] = action
        if path.name.endswith(CARD_SUFFIXES):
            for key in ("input", "output"):
                fragment = self._fragment(getattr(meta, key), key, front, check)
                if fragment is not None:
                    fragments.append((key, fragment, path, front.line_of(key)))
        if not ok or not check.ok:
            return None
        share = _Share(tuple(bodies), tuple(actions.values()), frozenset(tools), tuple(fragments))
        return share

    def _fragment(
        self, value: Any, key: str, front: FrontMatter, check: FileCheck
    ) -> dict[str, Any] | None:
        """A card's `input` or `output`: properties for the embedding deck's object schema."""
        if value is None:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("properties"), dict):
            check.problem(
                front.line_of(key),
                f"a card's `{key}` is a schema fragment: `properties` (and `required`) that "
                "the embedding deck's object schema gets",
            )
            return None
        fragment = {"type": "object", **value}
        why = schema_problem(fragment)
        if why is not None:
            check.problem(front.line_of(key), f"`{key}` is {why}")
            return None
        return fragment

    def _embedded(self, path: Path, stack: tuple[Path, ...]) -> _Share | None:
        """What the card (or deck) `path` adds where it is embedded; its problems recorded."""
        if path in self._shares:
            return self._shares[path]
        check = FileCheck(path)
        share = None
        try:
            root = self.root_of(path)
            assert root is not None
            if path.name.endswith(".py"):
                raise Bad("a Python card or embedded Python deck is not supported yet")
            front = _parse(read_file(path, root)[0])
            is_card = path.name.endswith(CARD_SUFFIXES)
            meta = _validate(front, CardFront if is_card else Front, check)
            if meta is not None:
                _tools(meta.tools, front, check)
                share = self._share(path, front, meta, check, (*stack, path))
        except Bad as bad:
            check.problem(bad.line, str(bad))
        if not check.ok:
            share = None
            self._why.setdefault(path, "has problems")
        self.problems += check.problems
        self._shares[path] = share
        return share

    def _action(
        self, owner: Path, entry: ActionEntry, line: int, check: FileCheck
    ) -> Action | None:
        target = self._target(owner, entry.path, line, "action", check)
        if target is None:
            return None
        if target in self._loading:
            names = [p.name for p in self._loading[self._loading.index(target) :]]
            check.problem(line, "action cycle: " + " -> ".join([*names, target.name]))
            return None
        child = self.load(target)
        if child is None:
            reason = self._why.get(target, "has problems")
            check.problem(line, f"the action {entry.name or entry.path}: {entry.path} {reason}")
            return None
        for key, schema in (("input", child.input_schema), ("output", child.output_schema)):
            if schema is None:
                check.problem(
                    line,
                    f"{child.name} is called as an action but declares no {key} schema "
                    f"(add `{key}:` to {target.name})",
                )
                return None
        name = entry.name or child.name
        why = name_problem(name, "action name")
        if why is None and entry.activity is not None:
            why = activity_problem(entry.activity)
        if why is not None:
            check.problem(line, why)
            return None
        description = entry.description or child.description
        return Action(name, entry.path, target, description, entry.activity or name)

    def _target(self, owner: Path, raw: str, line: int, what: str, check: FileCheck) -> Path | None:
        """The file an action, embed or handler path names, inside a deck folder."""
        if not raw or Path(raw).is_absolute() or raw.startswith("~"):
            check.problem(
                line, f"the {what} path {raw!r} must be relative to {owner.name}'s folder"
            )
            return None
        target = Path(os.path.normpath(owner.parent / raw))
        root = self.root_of(target)
        if root is None:
            check.problem(line, f"the {what} path {raw} leads outside the deck folders ({target})")
            return None
        home = self.root_of(owner)
        if home is not None and root.folder != home.folder and root.origin != "builtin":
            check.problem(
                line,
                f"the {what} path {raw} leads out of {owner.name}'s own deck folder "
                f"({shown_path(home.folder)}) into another ({shown_path(root.folder)})",
            )
            return None
        if not target.name.endswith((*DECK_SUFFIXES, *CARD_SUFFIXES)) and target.name != DIR_DECK:
            check.problem(
                line,
                f"the {what} path {raw} is not a deck or card file (NAME.deck.md, "
                "NAME.deck.py, NAME/deck.md, NAME.card.md)",
            )
            return None
        try:
            kind = file_kind(target, root)
        except PathError as err:
            check.problem(line, f"the {what} {raw} is refused: {err}")
            return None
        if kind is None:
            check.problem(line, f"the {what} file {raw} does not exist ({shown_path(target)})")
            return None
        return target

    def _handlers(
        self, path: Path, meta: Front, front: FrontMatter, check: FileCheck
    ) -> dict[str, Path]:
        handlers: dict[str, Path] = {}
        for key, raw in meta.handlers.model_dump(exclude_none=True).items():
            line = front.line_of("handlers")
            target = self._target(path, raw, line, f"{key} handler", check)
            if target is None:
                continue
            if target in self._loading or self.load(target) is None:
                why = self._why.get(target, "cannot call itself")
                check.problem(line, f"the {key} handler {raw} {why}")
                continue
            handlers[key] = target
        return handlers


def load_decks(
    root: Path,
    config_dir: Path | None,
    *,
    trust: TrustStore | None = None,
    trust_all: bool = False,
    extra: tuple[Path, ...] = (),
) -> DeckSet:
    """Every deck a session in `root` may use, and the problems of the files left out.

    `trust` decides which of the project's Python decks may run (None: none, unless
    `trust_all`); `extra` are deck files given by path, loaded first (origin "path")."""
    roots, files = roots_for(root, config_dir, extra)
    problems: list[Problem] = []
    warnings: list[str] = []
    candidates = [*files, *discover(roots, problems, warnings)]
    builder = Builder(roots, trust, trust_all, problems, warnings)
    decks: dict[str, Deck] = {}
    for path in candidates:
        deck = builder.load(path)
        if deck is None:
            continue
        first = decks.get(deck.name)
        if first is None:
            decks[deck.name] = deck
        elif first.path == deck.path:
            continue
        elif first.origin == deck.origin:
            problems.append(
                Problem(deck.path, deck.line, f"the name {deck.name} is taken by {_shown(first)}")
            )
        else:
            warnings.append(
                f"the {ORIGIN_WORDS[first.origin]} deck {deck.name} ({_shown(first)}) overrides "
                f"the {ORIGIN_WORDS[deck.origin]} one ({_shown(deck)})"
            )
    return with_agent_decks(root, DeckSet(decks, problems, warnings, files=builder.loaded()))


def _shown(deck: Deck) -> str:
    return shown_path(deck.path)


def load_deck_file(
    path: Path,
    root: Path,
    config_dir: Path | None,
    *,
    trust: TrustStore | None = None,
    trust_all: bool = False,
) -> tuple[Deck | None, DeckSet]:
    """The deck of the file `path` (None when it has problems), and every deck loaded."""
    decks = load_decks(root, config_dir, trust=trust, trust_all=trust_all, extra=(path,))
    return decks.by_path(Path(os.path.realpath(path.parent)) / path.name), decks


def _parse(text: str) -> FrontMatter:
    try:
        return parse(text)
    except FrontMatterError as err:
        raise Bad(str(err), err.line) from None


def _validate(front: FrontMatter, model: type[CardFront], check: FileCheck) -> CardFront | None:
    """The front matter as `model`; each unknown key and each bad value a problem at its line.
    The keys that are good are still returned (the caller drops a file with problems), so
    their own checks run too and a file's problems all show at once."""
    from pydantic import ValidationError

    known = model.model_fields
    data = dict(front.data)
    for key in list(data):
        if key not in known:
            check.problem(
                front.line_of(key), f"unknown key `{key}`: the keys are {', '.join(known)}"
            )
            del data[key]
    try:
        return model.model_validate(data)
    except ValidationError as err:
        bad = set()
        for error in err.errors(include_url=False):
            loc = [str(part) for part in error["loc"]]
            line = front.line_of(loc[0]) if loc else front.line
            check.problem(line, f"`{'.'.join(loc) or 'front matter'}`: {error['msg']}")
            bad.add(loc[0] if loc else "")
    try:
        return model.model_validate({k: v for k, v in data.items() if k not in bad})
    except ValidationError:
        return None


def _checked_name(path: Path, meta: Front, front: FrontMatter, check: FileCheck) -> str:
    """The deck's name; a problem for a bad name, activity or mode."""
    name = meta.name if meta.name is not None else deck_name_of(path)
    why = name_problem(name)
    if why is not None:
        check.problem(front.line_of("name"), why)
    if meta.activity is not None and (why := activity_problem(meta.activity)):
        check.problem(front.line_of("activity"), why)
    if meta.mode == "compute" and not path.name.endswith(".py"):
        check.problem(front.line_of("mode"), "`mode: compute` needs a Python deck (NAME.deck.py)")
    return name


def _tools(tools: list[str] | None, front: FrontMatter, check: FileCheck) -> tuple[str, ...]:
    if tools is None:
        return DEFAULT_TOOLS
    for index, tool in enumerate(tools):
        if tool not in DECK_TOOLS and not re.fullmatch(MCP_TOOL_RE, str(tool)):
            check.problem(
                front.line_of("tools", index),
                f"unknown tool {tool!r}: a deck may use {', '.join(DECK_TOOLS)}, or an MCP "
                "server's tools (mcp__SERVER__TOOL, mcp__SERVER__*)",
            )
    return tuple(dict.fromkeys(tools))


def read_state_schema(folder: Path, root: Root, check: FileCheck) -> dict[str, Any] | None:
    """A directory deck's `state.schema.json`, checked; None when it has none."""
    path = folder / "state.schema.json"
    try:
        if file_kind(path, root) is None:
            return None
        text, _ = read_file(path, root)
        schema = json.loads(text)
    except (Bad, PathError, ValueError) as err:
        check.problem(1, f"state.schema.json: {err}")
        return None
    why = schema_problem(schema)
    if why is not None:
        check.problem(1, f"state.schema.json: {why}")
        return None
    return schema if isinstance(schema, dict) else None


__all__ = [
    "Builder",
    "load_deck_file",
    "load_decks",
]
