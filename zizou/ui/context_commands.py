"""What the model is told of the project and the conversation, from the app.

`/compact [instructions]`: the conversation so far becomes the model's summary of it, shown in
the chat and kept in the session file (`Agent.compact`, core/summary.py). It waits for no turn:
while one runs it says so and does nothing (the summary would race the turn's own messages). A
model that fails leaves the conversation as it was, and says why.

`/init`: a turn that explores the project read-only and writes ZIZOU.md once the user approved
it (the built-in init hook, zizou/hooks/init.py, shapes that turn). Plan mode changes nothing,
so there it says to switch to build mode first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zizou.agent.guards import StopTurn
from zizou.errors import ProviderError
from zizou.ui.event_renderer import compaction_notice
from zizou.ui.host import SessionChanged
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.turns import TurnController

BUSY = "A turn is running: /compact once it ends (Esc stops it)."
NOTHING = "Nothing to compact yet: the conversation is empty."
INIT_IN_PLAN = "/init writes ZIZOU.md, and plan mode changes nothing: Shift+Tab to build first."


class ContextCommands:
    def __init__(
        self, host: Host, opening: Opening, notices: Notices, turns: TurnController
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.turns = turns

    @slash(
        "compact",
        "[instructions]",
        help="summarise the conversation, and go on from it",
        section="conversation",
    )
    async def compact(self, args: list[str]) -> None:
        """/compact [instructions]: summarise the conversation, and go on from the summary."""
        if self.turns.busy:
            await self.notices.add_notice(BUSY, "warning")
            return
        kernel = self.opening.current.kernel
        if len(kernel.conversation) == 0:
            await self.notices.add_notice(NOTHING)
            return
        self.turns.set_status("compacting…")
        try:
            event = await kernel.compact(" ".join(args))
        except (ProviderError, StopTurn) as exc:  # the model failed, or a spending cap held
            await self.notices.add_notice(
                f"The conversation was not compacted: {exc}", "error", "It is unchanged."
            )
            return
        finally:
            self.turns.set_status("ready")
        self.opening.current.last_request_tokens = 0  # the last request's size no longer holds
        self.host.post_message(SessionChanged())
        await self.notices.add_notice(compaction_notice(event), "success")

    @slash("init", help="write ZIZOU.md for this project (you approve the file)", section="context")
    async def init(self, args: list[str]) -> None:
        """/init: explore the project and write ZIZOU.md (the write asks for approval)."""
        from zizou.hooks.init import INIT_REQUEST

        if self.opening.current.kernel.state.mode == "plan":
            await self.notices.add_notice(INIT_IN_PLAN, "warning")
            return
        await self.turns.add(INIT_REQUEST)


__all__ = ["ContextCommands"]
