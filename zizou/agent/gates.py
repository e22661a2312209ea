"""What every tool call obeys beyond its own arguments, given to a CallRunner whole.

A call passes the same gates wherever it runs: the approver (one question at a time), the
session's rules ("always allow" included), the hooks' `before_tool`, plan mode's read-only
gate, the change recorder that keeps files for undo, and the checks after an edit. They come
as one frozen bundle at construction, never as attributes set afterwards, and a sub-agent's
bundle (a deck's child, a compute deck's tool calls) is derived from its parent's by
`for_child`: a gate the parent has cannot be forgotten inside.

The rules are the one thing that changes during a run, so they live in a `RuleBook` that the
main runner and every child share: "always allow" said in a deck's run holds for the main
agent from then on, and `/permissions` removing a rule removes it everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from zizou.agent.approvers import SerialApprover, serial
from zizou.agent.permissions import Rules
from zizou.contracts.protocols import Approver, ChangeChecks, ChangeRecorder, ToolPolicy
from zizou.tools.base import Access

ReadOnlyGate = Callable[[], str | None]  # why only tools that read may run now, or None


class RuleBook:
    """The session's rules as they are now, shared by every runner of the session."""

    def __init__(self, rules: Rules) -> None:
        self._rules = rules

    @property
    def rules(self) -> Rules:
        return self._rules

    def replace(self, rules: Rules) -> None:
        """The rules from now on (`/permissions` removed one, say)."""
        self._rules = rules

    def forget_tool(self, tool: str) -> None:
        """A tool rule removed (saved, or "always" in this session): the tool asks again."""
        rules = self._rules
        self._rules = dataclasses.replace(
            rules,
            saved_tools=tuple(t for t in rules.saved_tools if t != tool),
            allowed_tools=rules.allowed_tools - {tool},
        )

    def forget_prefix(self, prefix: str) -> None:
        """A command rule removed: such commands ask again."""
        rules = self._rules
        kept = tuple(p for p in rules.bash_prefixes if p != prefix)
        self._rules = dataclasses.replace(rules, bash_prefixes=kept)

    def always(self, tool: str, access: Access, suggested: tuple[str, ...]) -> None:
        """The user chose "always allow" for a call: its command prefixes, or its tool."""
        rules = self._rules
        if access.kind == "exec":
            new = tuple(rule for rule in suggested if rule not in rules.bash_prefixes)
            self._rules = dataclasses.replace(rules, bash_prefixes=(*rules.bash_prefixes, *new))
        else:
            self._rules = dataclasses.replace(rules, allowed_tools=rules.allowed_tools | {tool})


@dataclass(frozen=True)
class CallGates:
    """The gates of one runner (see the module's docstring). `chain`: the decks a sub-agent
    runs under, shown in its approvals (empty for the main agent)."""

    approver: SerialApprover
    book: RuleBook
    policy: ToolPolicy | None = None  # hooks' before_tool: may only tighten
    read_only: ReadOnlyGate | None = None  # plan mode, asked at each call
    changes: ChangeRecorder | None = None  # checkpoints: files kept before a change
    checks: ChangeChecks | None = None  # what a change broke, added to its result
    chain: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        approver: Approver,
        rules: Rules | RuleBook,
        *,
        policy: ToolPolicy | None = None,
        read_only: ReadOnlyGate | None = None,
        changes: ChangeRecorder | None = None,
        checks: ChangeChecks | None = None,
    ) -> CallGates:
        """A main runner's gates: `approver` asked one request at a time, `rules` in a book
        of their own unless a shared one is given."""
        book = rules if isinstance(rules, RuleBook) else RuleBook(rules)
        return cls(serial(approver), book, policy, read_only, changes, checks)

    @property
    def rules(self) -> Rules:
        return self.book.rules

    def for_child(
        self,
        chain: tuple[str, ...],
        wrap_policy: Callable[[ToolPolicy | None], ToolPolicy] | None = None,
    ) -> CallGates:
        """A sub-agent's gates: every one of the parent's, the same approver and rule book,
        under `chain`; its policy is the parent's, or as `wrap_policy` extends it (a deck's
        run refuses calls once it has returned, and still asks the parent's hooks)."""
        policy = self.policy if wrap_policy is None else wrap_policy(self.policy)
        return dataclasses.replace(self, chain=chain, policy=policy)


__all__ = ["CallGates", "ReadOnlyGate", "RuleBook"]
