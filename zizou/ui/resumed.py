"""A resumed conversation (`-c` / `-r`), shown as it went: the user's messages, the answers and
a row per tool call with its result."""

from __future__ import annotations

from typing import Any

from zizou.ui.shell import read_note, shell_row
from zizou.ui.widgets.chat_view import ChatView


async def show_history(chat: ChatView, messages: list[dict[str, Any]]) -> None:
    results = {
        m.get("tool_call_id"): str(m.get("content") or "")
        for m in messages
        if m.get("role") == "tool"
    }
    for message in messages:
        role, content = message.get("role"), str(message.get("content") or "")
        if role == "user" and (note := read_note(content)) is not None:
            row = shell_row(note[0])
            await chat.add(row)
            await row.finish(note[1].startswith("exit code 0"), note[1], 0.0, None)
        elif role == "user":
            await chat.add_user(content)
        elif role == "assistant":
            if content:
                answer = await chat.add_assistant()
                await answer.write(content)
                await answer.finish()
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                row = await chat.add_tool(
                    call.get("id", ""), function.get("name", "?"), function.get("arguments", "")
                )
                output = results.get(call.get("id"), "")
                await row.finish(not output.startswith("Error:"), output, 0.0, None)


__all__ = ["show_history"]
