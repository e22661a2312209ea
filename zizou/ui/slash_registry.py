"""Slash commands are declared where they are handled: `@slash("undo", help=...)` on the method
that runs `/undo`. The declarations are the one registry that `/help`, completion, the palette,
telling a command from a message (`slash.classify`) and dispatch (`commands.SlashCommands`) read.

A command lives in one of a few sections, which `/help` shows in this order; within a section,
commands are listed by name. A method may carry several declarations (an alias such as `/quit`
for `/exit`); one declared `raw=True` gets the text after its name as typed (`/run` reads JSON
from it) instead of the arguments split at white space.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

Section = Literal["conversation", "model", "context", "tools", "app"]
SECTIONS: dict[Section, str] = {
    "conversation": "Conversation",
    "model": "Model and cost",
    "context": "What the model sees",
    "tools": "Tools and rules",
    "app": "zizou",
}
Handler = Callable[..., Awaitable[None]]
H = TypeVar("H", bound=Handler)


@dataclass(frozen=True)
class SlashCommand:
    name: str
    args: str
    help: str
    section: Section = "app"
    raw: bool = False  # the handler gets the text after the name as typed

    @property
    def usage(self) -> str:
        return f"/{self.name} {self.args}".rstrip()


_DECLARED: dict[str, SlashCommand] = {}


def slash(
    name: str, args: str = "", *, help: str, section: Section, raw: bool = False
) -> Callable[[H], H]:
    """Declare the method below as the handler of `/name`."""
    command = SlashCommand(name, args, help, section, raw)
    if name in _DECLARED and _DECLARED[name] != command:
        raise ValueError(f"/{name} is declared twice")
    _DECLARED[name] = command

    def mark(handler: H) -> H:
        found: tuple[SlashCommand, ...] = getattr(handler, "__slash__", ())
        handler.__slash__ = (*found, command)  # type: ignore[attr-defined]
        return handler

    return mark


def declared() -> tuple[SlashCommand, ...]:
    """Every declared command: by section, then by name."""
    order = list(SECTIONS)
    return tuple(sorted(_DECLARED.values(), key=lambda c: (order.index(c.section), c.name)))


def handlers(*owners: object) -> dict[str, tuple[SlashCommand, Callable[..., Awaitable[None]]]]:
    """name -> (declaration, bound handler), for every declared method of `owners`."""
    table: dict[str, tuple[SlashCommand, Callable[..., Awaitable[None]]]] = {}
    for owner in owners:
        for attribute in dir(type(owner)):
            function: Any = getattr(type(owner), attribute, None)
            for command in getattr(function, "__slash__", ()):
                table[command.name] = (command, getattr(owner, attribute))
    return table


__all__ = ["SECTIONS", "Section", "SlashCommand", "declared", "handlers", "slash"]
