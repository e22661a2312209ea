"""The wizard's and `/models`' pure parts, without an App: provider rows, the model chosen after
a key works, the words shown, and the model list built from a small fake model map."""

from __future__ import annotations

from zizou.config.keys import ResolvedKey, StoreStatus
from zizou.providers.catalog import Provider, find_provider
from zizou.sessions.store import SessionSummary
from zizou.ui.conversations import session_entry
from zizou.ui.key_setup import (
    ProviderRow,
    export_line,
    key_result,
    model_after_setup,
    ollama_result,
    store_words,
)
from zizou.ui.model_list import describe, model_entries, provider_models


def provider(name: str) -> Provider:
    found = find_provider(name)
    assert found is not None
    return found


def test_the_model_is_kept_when_its_provider_was_set_up_else_the_default() -> None:
    assert model_after_setup("openai/gpt-4.1", provider("openai")) == "openai/gpt-4.1"
    assert model_after_setup("gpt-4.1", provider("openai")) == "gpt-4.1"
    assert model_after_setup("openai/gpt-4.1", provider("anthropic")) == (
        "anthropic/claude-sonnet-4-5"
    )
    assert model_after_setup("ollama_chat/llama3", provider("ollama")) == "ollama_chat/llama3"


def test_rows_say_where_each_key_comes_from_masked() -> None:
    openai, ollama = provider("openai"), provider("ollama")
    key = "sk-proj-0123456789abcd"
    assert ProviderRow(openai, None).status == "no key (set OPENAI_API_KEY or add one here)"
    env = ProviderRow(openai, ResolvedKey(key, "env:OPENAI_API_KEY"))
    assert env.status == "key from $OPENAI_API_KEY · sk-...abcd" and not env.stored
    stored = ProviderRow(openai, ResolvedKey(key, "keyring"))
    assert stored.status == "key in the OS keyring · sk-...abcd" and stored.stored
    assert ProviderRow(openai, ResolvedKey(key, "file")).status.startswith("key in the keys file")
    assert ProviderRow(ollama, None).status.startswith("no key needed")
    assert key not in env.status + stored.status


def test_a_key_from_the_environment_is_said_to_win_later() -> None:
    openai = provider("openai")
    row = ProviderRow(openai, ResolvedKey("sk-env-0123456789", "env:OPENAI_API_KEY"))
    result = key_result(row, "anthropic/claude-x", "sk-new-0123456789", "Saved.")
    assert result.model == "openai/gpt-4o" and result.api_key == "sk-new-0123456789"
    assert result.notes[0] == "Saved." and "$OPENAI_API_KEY is set" in result.notes[1]
    assert "sk-new" not in repr(result)
    plain = key_result(ProviderRow(openai, None), "openai/gpt-4.1", "sk-new-0123456789", "Saved.")
    assert plain.notes == ("Saved.",) and plain.model == "openai/gpt-4.1"


def test_ollama_results_name_the_address_only_when_it_is_not_the_default() -> None:
    default = ollama_result("http://127.0.0.1:11434", "qwen2.5-coder:7b")
    assert default.model == "ollama_chat/qwen2.5-coder:7b"
    assert "--api-base" not in default.notes[0]
    other = ollama_result("http://gpu-box:11434", "llama3:8b")
    assert other.api_base == "http://gpu-box:11434"
    assert other.notes[0].endswith("--model ollama_chat/llama3:8b --api-base http://gpu-box:11434")


def test_words_for_the_key_store_and_the_env_var() -> None:
    assert store_words(StoreStatus("keyring", "the OS keyring (SecretService)")) == (
        "Keys you add are saved in the OS keyring (SecretService)."
    )
    none = store_words(StoreStatus("none", "no OS keyring is available"))
    assert "never falls back to plain text" in none and "file only you can read" in none
    assert export_line(provider("groq")) == "export GROQ_API_KEY=<your key>"


TABLE = {
    "gpt-4o": {
        "litellm_provider": "openai",
        "mode": "chat",
        "max_input_tokens": 128000,
        "input_cost_per_token": 2.5e-06,
        "output_cost_per_token": 1e-05,
    },
    "gpt-4o-mini": {"litellm_provider": "openai", "mode": "chat"},
    "text-embedding-3-small": {"litellm_provider": "openai", "mode": "embedding"},
    "claude-3-haiku": {"litellm_provider": "anthropic", "mode": "chat"},
    "groq/llama-3.1-8b-instant": {"litellm_provider": "groq", "mode": "chat"},
}


def test_the_model_list_puts_current_then_defaults_then_keyed_providers_models() -> None:
    keyed = {"openai", "ollama"}
    entries = model_entries("my/model", lambda p: p.id in keyed, TABLE)
    ids = [e.model_id for e in entries]
    assert ids[0] == "my/model" and entries[0].note == "● current"
    assert ids[1:7] == [
        "openai/gpt-4o",
        "anthropic/claude-sonnet-4-5",
        "gemini/gemini-2.5-pro",
        "groq/openai/gpt-oss-120b",
        "openrouter/qwen/qwen3-coder",
        "ollama_chat/qwen2.5-coder",
    ]
    assert ids[7:] == ["openai/gpt-4o-mini"]  # only OpenAI has a key; no embeddings
    notes = {e.model_id: e.note for e in entries}
    assert notes["openai/gpt-4o"] == "default · 128k context · $2.50/$10.00 per M tokens"
    assert "no key yet" in notes["anthropic/claude-sonnet-4-5"]
    assert "no key yet" not in notes["ollama_chat/qwen2.5-coder"]


def test_the_current_models_provider_is_listed_even_without_a_key() -> None:
    ids = [e.model_id for e in model_entries("groq/x", lambda p: False, TABLE)]
    assert "groq/llama-3.1-8b-instant" in ids and "openai/gpt-4o-mini" not in ids
    assert provider_models(TABLE, provider("anthropic")) == ["anthropic/claude-3-haiku"]
    assert describe(None) == "" and describe({"max_input_tokens": 8192}) == "8k context"


def test_a_session_entry_shows_the_first_prompt_time_turns_and_id() -> None:
    summary = SessionSummary("20250101-120000-abc123", "2025-01-01T12:00:00+00:00", "x " * 80, 3)
    entry = session_entry(summary, current=True)
    assert entry.value == "20250101-120000-abc123"
    assert len(entry.label) == 60 and entry.label.endswith("…")
    assert entry.note.startswith("● current · 2025-01-01 ")
    assert entry.note.endswith(" · 3 turns · 20250101-120000-abc123")
