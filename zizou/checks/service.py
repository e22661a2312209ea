"""The checks of a session: what the call runner and the loop ask after a file changes.

After every change a file tool makes, `after_change` returns what it broke, for the tool's
result: the new syntax problems, and with `when = "edit"` the checkers' new diagnostics. With
`when = "turn"` (the default) the checkers run once the model ends its turn, on each file the
turn changed, and `turn_end` returns their new diagnostics for the loop to send back (at most
`rounds` times a turn, so a model that cannot fix them is not held in a loop).

A checker's diagnostic is new when the file did not have it before the turn's first change to
it: that first change runs the checkers on the file as it was (the baseline), before the tool
writes. Lines are matched across the change (a diagnostic that only moved is not new).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from zizou.checks.checkers import Checker, CheckSettings, checkers_for
from zizou.checks.report import APPLIED_NOTE, Finding, report
from zizou.checks.run import CheckRun, run_checker
from zizou.checks.syntax import SyntaxChecker, changed_span, moved_line
from zizou.repomap.tags import language_for
from zizou.sandbox import Sandbox

log = logging.getLogger(__name__)
TURN_INTRO = (
    "The checks configured for this project ran on the files you changed in this turn. Your "
    "changes were applied; these problems are new since the turn began. Fix the ones your "
    "changes caused, then answer as before."
)


@dataclass
class _Changed:
    """A file the turn changed: its bytes before the first change, and what the checkers
    said of them."""

    original: bytes | None
    baseline: dict[str, CheckRun] = field(default_factory=dict)
    current: bytes | None = None


class EditChecks:
    """The session's checks (see the module)."""

    def __init__(
        self,
        root: Path,
        settings: CheckSettings,
        sandbox: Sandbox | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.root = root
        self.settings = settings
        self.sandbox = sandbox
        self.environ = environ
        self.syntax = SyntaxChecker() if settings.syntax else None
        path = None if environ is None else environ.get("PATH")
        self.checkers = checkers_for(settings, root, path)
        self.changed: dict[str, _Changed] = {}  # this turn's files, in the order first changed
        self.rounds = 0
        self.dirty = False  # a file changed since the turn began, or since the last report
        self._before: dict[str, bytes | None] = {}

    def new_turn(self) -> None:
        self.changed.clear()
        self.rounds = 0
        self.dirty = False

    def wants(self, rel: str) -> bool:
        """Whether a file read is worth preparing for: its syntax is checked."""
        return self.syntax is not None and language_for(rel) is not None

    def seen(self, rel: str, data: bytes) -> None:
        """The model read `rel` as `data`: its tree is made now, so an edit checks fast."""
        if self.syntax is not None:
            self.syntax.remember(rel, data)

    async def before_change(self, rel: str, data: bytes | None) -> None:
        """`rel` is about to change from `data` (None: it does not exist yet)."""
        self._before[rel] = data
        if rel in self.changed:
            return
        changed = self.changed[rel] = _Changed(data)
        if data is not None:
            for checker in self._checkers(rel):
                changed.baseline[checker.name] = await self._run(checker, rel)

    async def after_change(self, rel: str, data: bytes) -> str | None:
        """What the change to `rel` (now `data`) brought, for the tool's result; None: nothing."""
        before = self._before.pop(rel, None)
        changed = self.changed.setdefault(rel, _Changed(before))
        changed.current = data
        self.dirty = True
        parts: list[str] = []
        if self.syntax is not None:
            found = await asyncio.to_thread(self.syntax.new_problems, rel, before, data)
            if found:
                parts.append(report("New syntax problems", found, _text(data)))
        if self.settings.when == "edit":
            parts.extend(await self._checked(rel, changed, APPLIED_NOTE))
        return "\n\n".join(parts) or None

    async def turn_end(self) -> str | None:
        """With `when = "turn"`: the checkers' new diagnostics on the turn's files, for the
        model, or None (nothing new, no checker, nothing changed since the last report, or no
        rounds left this turn)."""
        if self.settings.when != "turn" or self.rounds >= self.settings.rounds or not self.dirty:
            return None
        self.dirty = False  # the model answered a report without a change: the turn ends
        parts: list[str] = []
        for rel, changed in self.changed.items():
            if changed.current is not None:
                parts.extend(await self._checked(rel, changed, "after your changes"))
        if not parts:
            return None
        self.rounds += 1
        return "\n\n".join([TURN_INTRO, *parts])

    async def _checked(self, rel: str, changed: _Changed, when: str) -> list[str]:
        parts = []
        for checker in self._checkers(rel):
            run = await self._run(checker, rel)
            if run.problem is not None:
                parts.append(f"{rel}: {checker.name} did not finish {when}: {run.problem}.")
                continue
            base = changed.baseline.get(checker.name)
            found = new_findings(base, run, changed.original, changed.current or b"")
            if found:
                title = f"{rel}: new problems from {checker.name}"
                parts.append(report(title, found, _text(changed.current or b""), when))
        return parts

    def _checkers(self, rel: str) -> list[Checker]:
        language = language_for(rel)
        return [c for c in self.checkers if language in c.languages]

    async def _run(self, checker: Checker, rel: str) -> CheckRun:
        try:
            return await run_checker(
                checker, rel, self.root, self.sandbox, self.settings.budget_s, self.environ
            )
        except Exception as exc:  # a checker must never take the edit down with it
            log.exception("the checker %s failed on %s", checker.name, rel)
            return CheckRun(checker.name, problem=f"{type(exc).__name__}: {exc}")


def new_findings(
    base: CheckRun | None, run: CheckRun, before: bytes | None, after: bytes
) -> list[Finding]:
    """The findings of `run` that the baseline (on `before`) did not have: not at the line an
    old one of the same message moved to, and more of that message than there were."""
    if base is None or base.problem is not None or before is None:
        old: tuple[Finding, ...] = ()
    else:
        old = base.findings
    span = changed_span(before or b"", after)
    moved = {(moved_line(f.line, span, before or b"", after), f.message) for f in old}
    before_count = Counter(f.message for f in old)
    now_count = Counter(f.message for f in run.findings)
    return [
        f
        for f in run.findings
        if (f.line, f.message) not in moved and now_count[f.message] > before_count[f.message]
    ]


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


__all__ = ["TURN_INTRO", "EditChecks", "new_findings"]
