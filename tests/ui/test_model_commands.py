"""`/models` (the catalog and the local model map), `/keys` and `/sessions` (list and resume)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.contracts.messages import from_wire
from zizou.sessions.store import SessionStore
from zizou.ui.key_setup import KeyServices
from zizou.ui.screens.key_wizard import KeyWizardScreen
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage
from zizou.ui.widgets.tool_row import ToolRow

OLD_ID = "20240105-093000-0ld0ld"


def said(app: Any) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


async def picker(pilot: Any) -> PickerScreen:
    await settle(pilot, lambda: isinstance(pilot.app.screen, PickerScreen))
    return pilot.app.screen  # type: ignore[no-any-return]


async def test_models_lists_the_catalog_and_switches(make_app: MakeApp) -> None:
    app = make_app(keys=KeyServices(environ={"OPENAI_API_KEY": "sk-test-0123456789"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/models")
        screen = await picker(pilot)
        values = [e.value for e in screen.entries]
        assert values[:3] == ["scripted", "openai/gpt-4o", "anthropic/claude-sonnet-4-5"]
        assert "ollama_chat/qwen2.5-coder" in values
        assert "openai/gpt-4o-mini" in values  # OpenAI has a key: its other models are listed
        assert not any(v.startswith("anthropic/claude-3") for v in values)  # no key
        notes = {e.value: e.note for e in screen.entries}
        assert "128k context" in notes["openai/gpt-4o"] and "per M tokens" in notes["openai/gpt-4o"]
        assert "no key yet" in notes["anthropic/claude-sonnet-4-5"]
        await pilot.press("down", "enter")
        await settle(pilot, lambda: app.session.model_id != "scripted")
        assert app.session.model_id == "openai/gpt-4o"


async def test_keys_opens_the_wizard(make_app: MakeApp) -> None:
    app = make_app(keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/keys")
        await settle(pilot, lambda: isinstance(app.screen, KeyWizardScreen))
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, KeyWizardScreen))
        assert app.session.model_id == "scripted"


def save_old_session(root: Path) -> None:
    writer = SessionStore(root).create(OLD_ID, "scripted")
    writer.begin_turn("what does app.py do?", [])
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "read_file", "arguments": '{"path": "app.py"}'}  # type: ignore[assignment]
    for message in (
        {"role": "user", "content": "what does app.py do?"},
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "print('hi')"},
        {"role": "assistant", "content": "It prints **hi**."},
    ):
        writer.append_message(from_wire(message))
    writer.close()


async def test_sessions_lists_and_resumes_with_the_history(
    make_app: MakeApp, project: Path
) -> None:
    save_old_session(project)
    app = make_app([{"text": "still hi"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/sessions")
        screen = await picker(pilot)
        [entry] = screen.entries
        assert entry.value == OLD_ID and entry.label == "what does app.py do?"
        assert re.fullmatch(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d · 1 turn · {OLD_ID}", entry.note)
        await pilot.press("enter")
        await settle(pilot, lambda: f"Resumed session {OLD_ID}." in said(app))
        assert app.session.kernel.session_id == OLD_ID
        assert [m.text for m in app.query(UserMessage)] == ["what does app.py do?"]
        assert app.query_one(AssistantMessage).source == "It prints **hi**."
        assert app.query_one(ToolRow).tool == "read_file"
        await send(pilot, "and now?")
        await settle(pilot)
        request = app.session.kernel.agent.model.requests[-1]  # type: ignore[attr-defined]
        contents = [m.get("content") for m in request.messages]
        assert contents[-5:] == [
            "what does app.py do?",
            "",
            "print('hi')",
            "It prints **hi**.",
            "and now?",
        ]


async def test_sessions_says_when_there_are_none(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/sessions")
        screen = await picker(pilot)
        assert screen.entries == []
        await pilot.press("escape")
        assert app.session.kernel.session_id != OLD_ID


class OllamaKeys(KeyServices):
    """An Ollama server with two models, asked nothing over the network."""

    def ollama_models(self, base_url: str) -> list[str]:
        self.asked.append(base_url)  # type: ignore[attr-defined]
        return ["llama3.2", "qwen2.5-coder"]


async def test_modelid_names_the_model_and_its_address(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/modelid")
        assert app.query(Notice).last().message == "Model: scripted"


async def test_ollama_keeps_the_address_for_the_next_ollama_model(make_app: MakeApp) -> None:
    keys = OllamaKeys(environ={})
    object.__setattr__(keys, "asked", [])
    app = make_app(keys=keys)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/ollama")
        assert "Which Ollama server?" in said(app)
        await send(pilot, "/ollama http://10.0.0.7:11434/v1")
        await settle(pilot, lambda: "It has" in said(app))
        assert keys.asked == ["http://10.0.0.7:11434"]  # type: ignore[attr-defined]
        last = app.query(Notice).last().message
        assert "the model is still scripted" in last
        assert "ollama_chat/llama3.2, ollama_chat/qwen2.5-coder" in last
        assert app.session.model_id == "scripted"
        await send(pilot, "/model ollama_chat/llama3.2")
        model = app.session.kernel.agent.model
        assert model.id == "ollama_chat/llama3.2"
        assert model.api_base == "http://10.0.0.7:11434"  # type: ignore[attr-defined]
        await send(pilot, "/modelid")
        last = app.query(Notice).last().message
        assert last == "Model: ollama_chat/llama3.2 at http://10.0.0.7:11434"
        await send(pilot, "/ollama http://10.0.0.8:11434")  # the model in use moves with it
        assert app.session.kernel.agent.model.api_base == "http://10.0.0.8:11434"  # type: ignore[attr-defined]
        assert "ollama_chat/llama3.2 is reached at http://10.0.0.8:11434" in said(app)


async def test_the_models_list_filters_as_you_type(make_app: MakeApp) -> None:
    app = make_app(keys=KeyServices(environ={"OPENAI_API_KEY": "sk-test-0123456789"}))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/models")
        screen = await picker(pilot)
        await pilot.press("q", "d", "z", "z")  # q and d type here: they neither close nor remove
        assert screen.shown == [] and isinstance(app.screen, PickerScreen)
        await pilot.press(*["backspace"] * 4, *"4o-mini")
        assert screen.shown[0].value == "openai/gpt-4o-mini"
        assert all("4" in e.value and "o" in e.value for e in screen.shown)
        assert len(screen.shown) < len(screen.entries)
        await pilot.press("enter")
        await settle(pilot, lambda: app.session.model_id != "scripted")
        assert app.session.model_id == "openai/gpt-4o-mini"
