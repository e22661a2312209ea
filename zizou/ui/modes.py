"""The session's mode from the app: Shift+Tab in the prompt and `/mode` switch it, and the plan
gate.

build offers every tool; plan only those that read, and a write is refused (the built-in modes
hook, `zizou.hooks.modes`). The status bar's badge follows the mode through `SessionChanged`,
which every change of the session's state posts. When a turn in plan mode ends by itself with
a plan in the task state, and no message waits behind it, the plan gate lists the plan and asks
whether to switch to build and carry it out: yes sends "Go ahead with the plan." as the user's
next message; no keeps planning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zizou.hooks.modes import GO_AHEAD
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.agent.permissions import PermissionMode
    from zizou.contracts.events import TurnFinished
    from zizou.contracts.state import SessionState
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.screens.plan_gate import PlanGateScreen
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.messages import NoticeKind, TypingClock

SWITCHED = {
    "build": "Build mode: zizou may edit files and run commands again (as you approve them).",
    "plan": "Plan mode: zizou reads and plans, and changes nothing. Shift+Tab or /mode build "
    "to build.",
}
WHAT = {
    "build": "every tool: zizou edits files and runs commands, as you approve them",
    "plan": "read-only: zizou reads and plans, and changes nothing",
}
USAGE = "/mode plan or /mode build switches it; so does Shift+Tab in the prompt."
PERMISSIONS = {
    "accept-edits": "Build mode, accepting edits: edits go ahead, commands ask.",
    "auto": "Build mode, auto: any command the sandbox holds runs without asking; what leaves "
    "it still asks.",
    "ask": "Build mode, asking: every edit and command asks.",
}
STILL_PLANNING = "Still planning: say what to change, or Shift+Tab to build."
CARRYING_OUT = "Build mode: zizou carries out the plan."


class ModeController:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        notices: Notices,
        turns: TurnController,
        typing: TypingClock | None = None,
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.turns = turns
        self.typing = typing
        self.gate: PlanGateScreen | None = None  # the plan gate, while it is open

    @property
    def state(self) -> SessionState:
        return self.opening.current.kernel.state

    async def say(self, text: str, kind: NoticeKind = "info", fix: str | None = None) -> None:
        await self.notices.add_notice(text, kind, fix)

    async def cycle(self) -> None:
        """Shift+Tab in the prompt: build (accept edits), build (auto), build (ask), plan, and
        round again: the session's mode and its permission mode in one cycle."""
        kernel = self.opening.current.kernel
        if self.state.mode == "plan":
            kernel.set_permission_mode("accept-edits")
            await self.switch("build")
            return
        cycle: tuple[PermissionMode, ...] = ("accept-edits", "auto", "ask")
        current = kernel.rules.permission_mode
        if current == cycle[-1]:
            await self.switch("plan")
            return
        wanted = cycle[cycle.index(current) + 1]
        kernel.set_permission_mode(wanted)
        self.host.post_message(SessionChanged())
        said = PERMISSIONS[wanted]
        if wanted == "auto" and kernel.rules.sandbox != "on":
            said += " There is no sandbox here, so commands still ask."
        await self.say(said)

    async def switch(self, mode: str) -> None:
        if not self.state.set_mode(mode, "user"):
            await self.say(f"Already in {mode} mode ({WHAT.get(mode, mode)}).")
            return
        self.host.post_message(SessionChanged())
        when = " (from the running turn's next step)" if self.turns.running else ""
        await self.say(SWITCHED.get(mode, f"Mode: {mode}.") + when)

    @slash(
        "mode", "[build|plan]", help="show or switch the mode: plan is read-only", section="context"
    )
    async def command(self, args: list[str]) -> None:
        """/mode: the mode and how to switch; /mode build|plan switches."""
        from zizou.hooks.modes import MODES

        mode = self.state.mode
        if not args:
            await self.say(f"Mode: {mode} ({WHAT.get(mode, mode)}).", fix=USAGE)
            return
        wanted = args[0].lower()
        if wanted not in MODES:
            known = " and ".join(MODES)
            await self.say(f"Unknown mode {args[0]!r}: the modes are {known}.", "warning", USAGE)
            return
        await self.switch(wanted)

    async def opened(self) -> None:
        """A session that opens in plan mode (resumed, or `--mode plan`) says so."""
        if self.state.mode == "plan":
            await self.say(SWITCHED["plan"])

    # --- the plan gate ---------------------------------------------------------------------

    async def turn_done(self, finished: TurnFinished) -> None:
        """A turn ended by itself: in plan mode, with a plan that has open items, the gate asks
        whether to build (a plan whose items are all done is not one to carry out)."""
        from zizou.hooks.modes import open_items, plan_text

        if finished.reason != "done" or self.state.mode != "plan" or len(self.turns.queue):
            return
        task = self.state.task
        value = task.value if task is not None else None
        plan = plan_text(value)
        if not plan or not open_items(value):
            return
        from zizou.ui.screens.plan_gate import PlanGateScreen

        self.gate = PlanGateScreen(plan, self.typing)
        self.host.post_message(ShowScreen(self.gate, self._answered))

    async def _answered(self, yes: bool | None) -> None:
        self.gate = None
        if yes is None:  # the user sent a message instead
            return
        if not yes:
            await self.say(STILL_PLANNING)
            return
        self.state.set_mode("build", "user")
        self.host.post_message(SessionChanged())
        await self.say(CARRYING_OUT, "success")
        await self.turns.add(GO_AHEAD)


__all__ = ["GO_AHEAD", "STILL_PLANNING", "SWITCHED", "ModeController"]
