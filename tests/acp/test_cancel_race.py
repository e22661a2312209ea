"""A cancel that lands while the session is telling the editor something still answers the
prompt with "cancelled": the editor is never left waiting for the turn it stopped."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from waiting import within

from zizou.acp.session import AcpSession
from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session


class SlowEditor:
    """An editor that takes its time over the first piece of the answer it is told."""

    def __init__(self) -> None:
        self.telling = asyncio.Event()
        self.told: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.told.append(update)
        if getattr(update, "session_update", "") == "agent_message_chunk":
            self.telling.set()
            await asyncio.sleep(3600)  # cancelled with the turn

    async def request_permission(self, **_: Any) -> Any:
        raise AssertionError("nothing is asked")


async def test_a_cancel_while_the_editor_is_told_answers_cancelled(tmp_path: Path) -> None:
    model = ScriptedModel([{"text": "a long answer that the editor is slow to take"}])
    options = RunOptions(root=tmp_path, debug_log=False)
    kernel = build_session(options, model, ScriptedApprover(), persist=False)
    editor = SlowEditor()
    session = AcpSession(kernel, editor, [])  # type: ignore[arg-type]
    prompt = asyncio.ensure_future(session.prompt("go"))
    await within(editor.telling.wait(), "the answer to be told")
    session.cancel()
    await within(prompt, "the prompt's answer")
    assert prompt.result() == "cancelled"
