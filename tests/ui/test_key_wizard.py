"""The key wizard, driven with Pilot: with an OS keyring (a fake in memory) and without one (the
real failing backend), keys checked against the loopback server and a stub that answers 401,
Esc during a check, forgetting a key, Ollama's model list, `--setup`, `--reset` and `/keys`."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from fake_keyring import MemoryKeyring
from key_stub import GOOD_KEY, KeyStub
from loopback import LoopbackServer
from textual.widgets import Input, OptionList
from ui_harness import MakeApp, OpenedModel, send, settle

from zizou.config.keys_file import keys_file_path
from zizou.ui.key_setup import KeyServices
from zizou.ui.screens.confirm import ConfirmScreen
from zizou.ui.screens.key_wizard import KeyWizardScreen
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.provider_list import ProviderList
from zizou.ui.widgets.store_choice import StoreChoice

NO_KEY = ("openai/", "anthropic/")  # models the scripted factory cannot open without a key


def said(app: Any) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def wizard_text(app: Any) -> str:
    """Every line of the wizard's texts and lists."""
    screen = app.screen
    assert isinstance(screen, KeyWizardScreen)
    texts = [str(w.render()) for w in screen.query("Static")]
    for options in screen.query(OptionList):
        texts += [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    return "\n".join(texts)


async def wizard_ready(pilot: Any) -> KeyWizardScreen:
    """Wait for the wizard to have listed the providers."""
    app = pilot.app

    def ready() -> bool:
        screen = app.screen
        return (
            isinstance(screen, KeyWizardScreen)
            and bool(screen.query_one(ProviderList).rows)
            and not screen.calls.busy
        )

    await settle(pilot, ready)
    return app.screen  # type: ignore[no-any-return]


def checking(app: Any) -> bool:
    """A background call (a key check) has not come back yet, answer or no answer."""
    return any(w.group == "background" and not w.is_finished for w in app.workers)


async def type_key(pilot: Any, key: str) -> None:
    """Paste all but the last character (typing each costs a frame), type that one, Enter."""
    pilot.app.screen.query_one("#key-input", Input).value = key[:-1]
    await pilot.press(key[-1], "enter")


def idle(screen: KeyWizardScreen) -> bool:
    return not screen.calls.busy


async def test_first_run_opens_the_wizard_and_keeps_a_good_key_in_the_keyring(
    make_app: MakeApp, memory_keyring: MemoryKeyring
) -> None:
    with LoopbackServer([]) as server:  # GET /v1/models answers 200
        keys = KeyServices(api_base=server.base_url, environ={})
        app = make_app(model_id="openai/gpt-4o", missing=NO_KEY, keys=keys)
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await wizard_ready(pilot)
            assert "No key for openai" in wizard_text(app)
            assert "the OS keyring (MemoryKeyring)" in wizard_text(app)
            await pilot.press("enter")  # OpenAI is highlighted: it is the model's provider
            assert screen.step == "key"
            await type_key(pilot, GOOD_KEY)
            await settle(pilot, lambda: "Model: openai/gpt-4o" in said(app))
            model = app.session.kernel.agent.model
            assert isinstance(model, OpenedModel) and model.api_key == GOOD_KEY
            assert app.session.model_problem is None
            assert "Saved the key for OpenAI in the OS keyring (MemoryKeyring)" in said(app)
            assert GOOD_KEY not in said(app)
    assert memory_keyring.store == {("zizou", "openai"): GOOD_KEY}


async def test_without_a_keyring_it_offers_the_file_store(
    make_app: MakeApp, zizou_home: Path
) -> None:
    with LoopbackServer([]) as server:
        keys = KeyServices(api_base=server.base_url, environ={})
        app = make_app(model_id="openai/gpt-4o", missing=NO_KEY, keys=keys)
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await wizard_ready(pilot)
            assert "no OS keyring is available" in wizard_text(app)
            await pilot.press("enter")
            await type_key(pilot, GOOD_KEY)
            await settle(pilot, lambda: screen.step == "store" and idle(screen))
            text = wizard_text(app)
            assert "The key works." in text and "no OS keyring is available" in text
            options = screen.query_one(StoreChoice).query_one(OptionList)
            labels = [str(options.get_option_at_index(i).prompt) for i in range(2)]
            assert str(keys_file_path()) in labels[0] and "mode 0600" in labels[0]
            assert "export OPENAI_API_KEY=<your key>" in labels[1]
            await pilot.press("enter")  # the file
            await settle(pilot, lambda: "Model: openai/gpt-4o" in said(app))
            path = keys_file_path()
            assert f"Saved the key for OpenAI in {path} (mode 0600)" in said(app)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert f'openai = "{GOOD_KEY}"' in path.read_text()


async def test_without_a_keyring_the_env_var_saves_nothing(make_app: MakeApp) -> None:
    with LoopbackServer([]) as server:
        keys = KeyServices(api_base=server.base_url, environ={})
        app = make_app(model_id="openai/gpt-4o", missing=NO_KEY, keys=keys)
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await wizard_ready(pilot)
            await pilot.press("enter")
            await type_key(pilot, GOOD_KEY)
            await settle(pilot, lambda: screen.step == "store" and idle(screen))
            await pilot.press("down", "enter")
            await settle(pilot, lambda: "Model: openai/gpt-4o" in said(app))
            model = app.session.kernel.agent.model
            assert isinstance(model, OpenedModel) and model.api_key == GOOD_KEY
            assert "Nothing was saved" in said(app)
            assert "export OPENAI_API_KEY=<your key>" in said(app) and GOOD_KEY not in said(app)
    assert not keys_file_path().exists()


async def test_a_rejected_key_stays_in_the_field_and_nothing_else_changes(
    make_app: MakeApp, memory_keyring: MemoryKeyring, key_stub: KeyStub
) -> None:
    memory_keyring.store[("zizou", "anthropic")] = "sk-ant-old-key-0123456789"
    app = make_app(missing=NO_KEY, keys=KeyServices(api_base=key_stub.base, environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        await send(pilot, "/keys anthropic")
        screen = await wizard_ready(pilot)
        assert "key in the OS keyring · sk-...6789" in wizard_text(app)
        await pilot.press("enter")
        await type_key(pilot, "sk-ant-wrong-0123456789")
        await settle(pilot, lambda: "rejected" in wizard_text(app) and idle(screen))
        assert "Anthropic rejected the key (HTTP 401)" in wizard_text(app)
        assert screen.step == "key"
        assert screen.query_one("#key-input", Input).value == "sk-ant-wrong-0123456789"
        await pilot.press("escape", "escape")
        assert not isinstance(app.screen, KeyWizardScreen)
        assert app.session.model_id == "scripted"
    assert memory_keyring.store == {("zizou", "anthropic"): "sk-ant-old-key-0123456789"}
    assert key_stub.paths == ["/models"]


async def test_esc_abandons_a_slow_check(make_app: MakeApp, memory_keyring: MemoryKeyring) -> None:
    stub = KeyStub(hold=True)
    try:
        app = make_app(missing=NO_KEY, keys=KeyServices(api_base=stub.base, environ={}))
        async with app.run_test(size=(100, 34)) as pilot:
            await send(pilot, "/keys openai")
            screen = await wizard_ready(pilot)
            await pilot.press("enter")
            await type_key(pilot, GOOD_KEY)
            await settle(pilot, lambda: bool(stub.paths))
            assert screen.calls.busy and "Esc cancels" in wizard_text(app)
            await pilot.press("escape")
            assert "Cancelled: nothing was changed." in wizard_text(app)
            stub.release.set()  # the good answer comes late, and is ignored
            await settle(pilot, lambda: stub.answered.is_set() and not checking(app))
            assert isinstance(app.screen, KeyWizardScreen) and screen.step == "key"
            assert app.session.model_id == "scripted"
        assert memory_keyring.store == {}
    finally:
        stub.close()


async def test_ollama_lists_the_servers_models_to_pick_from(
    make_app: MakeApp, key_stub: KeyStub
) -> None:
    app = make_app(keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        await send(pilot, "/keys ollama")
        screen = await wizard_ready(pilot)
        await pilot.press("enter")
        url = screen.query_one("#ollama-url", Input)
        assert url.value == "http://127.0.0.1:11434"
        url.value = key_stub.base
        await pilot.press("enter")
        await settle(pilot, lambda: "2 models at" in wizard_text(app) and idle(screen))
        await pilot.press("down", "enter")
        await settle(pilot, lambda: "Model: ollama_chat/llama3:8b" in said(app))
        model = app.session.kernel.agent.model
        assert isinstance(model, OpenedModel) and model.api_base == key_stub.base
        assert app.session.model_id == "ollama_chat/llama3:8b"
        assert f"--api-base {key_stub.base}" in said(app)


async def test_d_forgets_a_stored_key_after_a_yes(
    make_app: MakeApp, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.store[("zizou", "openai")] = "sk-stored-0123456789"
    app = make_app(keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        await send(pilot, "/keys openai")
        await wizard_ready(pilot)
        await pilot.press("d")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot, lambda: "Forgot the key for OpenAI" in wizard_text(app))
        await wizard_ready(pilot)
        assert "no key (set OPENAI_API_KEY" in wizard_text(app)
    assert memory_keyring.store == {}


async def test_setup_opens_the_wizard_and_reset_asks_for_the_models_key(
    make_app: MakeApp, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.store[("zizou", "openai")] = "sk-stored-0123456789"
    app = make_app(model_id="openai/gpt-4o", setup="setup", keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await wizard_ready(pilot)
        assert screen.step == "providers"
    app = make_app(model_id="openai/gpt-4o", setup="reset", keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await wizard_ready(pilot)
        assert screen.step == "key"
        assert "it replaces the key in the OS keyring · sk-...6789" in wizard_text(app)
        await pilot.press("escape", "escape")
    assert memory_keyring.store == {("zizou", "openai"): "sk-stored-0123456789"}


async def test_a_model_without_a_key_opens_the_wizard_for_its_provider(
    make_app: MakeApp,
) -> None:
    app = make_app(missing=NO_KEY, keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 34)) as pilot:
        await send(pilot, "/model anthropic claude-x")
        screen = await wizard_ready(pilot)
        assert screen.target_model == "anthropic/claude-x"
        assert "No key for anthropic" in wizard_text(app)
        assert app.session.model_id == "scripted"
