"""A session whose turns change real files the way the call runner does: each file kept through
its handle before the change, and noted after it."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from zizou.checkpoints import Checkpoints
from zizou.confined import open_handle
from zizou.contracts.conversation import Conversation
from zizou.contracts.messages import ToolMessage
from zizou.contracts.protocols import ToolCall
from zizou.sessions import SessionStore, SessionWriter

Changes = dict[str, bytes | None]  # path -> its new bytes; None: deleted


class Session:
    def __init__(self, root: Path, session_id: str = "s1") -> None:
        self.root = root
        self.id = session_id
        self.store = SessionStore(root)
        self.writer: SessionWriter = self.store.create(session_id, "m")
        self.conversation = Conversation(on_append=self.writer.append_message)
        self.checkpoints = Checkpoints(root, session_id, self.conversation, self.writer)

    def change(self, rel: str, data: bytes | None) -> None:
        with open_handle(self.root, rel) as handle:
            assert self.checkpoints.before_change(handle) is None
            if data is None:
                os.unlink(handle.path)
            else:
                handle.atomic_write(data)
            self.checkpoints.after_change(handle)

    def turn(self, text: str, changes: Changes, commands: tuple[str, ...] = ()) -> None:
        """One turn: the user's message, the changes (and commands), the answer."""
        self.writer.begin_turn(text, self.conversation.messages)
        self.checkpoints.begin_turn(text, self.conversation.messages)
        self.conversation.add_user(text)
        calls = tuple(
            ToolCall(f"c{len(self.conversation)}-{n}", "run_bash", json.dumps({"command": c}))
            for n, c in enumerate(commands)
        )
        if calls:
            self.conversation.add_assistant("", calls)
            for call in calls:
                self.conversation.add_tool_result(ToolMessage(tool_call_id=call.id, content="ok"))
        for rel, data in changes.items():
            self.change(rel, data)
        self.conversation.add_assistant("done")

    def commands(self, text: str, commands: tuple[str, ...]) -> None:
        """One turn whose model runs `commands` (bash, in the project) as the call runner
        would: each watched, run, and what it changed kept."""
        self.writer.begin_turn(text, self.conversation.messages)
        self.checkpoints.begin_turn(text, self.conversation.messages)
        self.conversation.add_user(text)
        for n, command in enumerate(commands):
            call = ToolCall(
                f"c{len(self.conversation)}-{n}", "run_bash", json.dumps({"command": command})
            )
            self.conversation.add_assistant("", (call,))
            watch = self.checkpoints.before_command(command)
            assert watch is None or watch.problem is None, watch.problem
            done = subprocess.run(
                ["bash", "-c", command], cwd=self.root, capture_output=True, check=False
            )
            if watch is not None:
                assert watch.finished() is None
            output = done.stdout.decode() + done.stderr.decode()
            self.conversation.add_tool_result(ToolMessage(tool_call_id=call.id, content=output))
        self.conversation.add_assistant("done")

    def reopened(self) -> Checkpoints:
        """The session as `zizou -c` or `zizou undo` would open it now."""
        self.writer.close()
        return Checkpoints.open(self.root, self.id)
