"""Which model ids litellm can route, decided from the files it ships, before any request."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.config.model_choice import MissingKey, open_model
from zizou.providers.model_ids import (
    UnknownModel,
    UnknownProvider,
    chat_models,
    check_model_id,
    closest,
    is_known_provider,
    known_providers,
    model_warning,
)


def test_a_misspelt_bare_model_is_unknown_and_the_nearest_is_suggested() -> None:
    with pytest.raises(UnknownModel) as caught:
        check_model_id("gpt-4o-typo")
    assert str(caught.value) == "unknown model gpt-4o-typo: did you mean gpt-4o? see `zizou models`"
    assert caught.value.exit_code == 2 and caught.value.kind == "unknown_model"
    with pytest.raises(UnknownModel, match=r"did you mean claude-sonnet-4-5\?"):
        check_model_id("claude-sonet-4-5")


def test_a_bare_name_nothing_is_close_to_says_how_to_name_it() -> None:
    with pytest.raises(UnknownModel, match=r"ollama_chat/zq-nothing-like-it.*--api-base"):
        check_model_id("zq-nothing-like-it")


@pytest.mark.parametrize("model_id", ["gpt-4o", "claude-sonnet-4-5", "openai/gpt-4o"])
def test_listed_models_pass(model_id: str) -> None:
    check_model_id(model_id)


def test_an_unknown_provider_is_named_with_the_known_ones() -> None:
    with pytest.raises(UnknownProvider) as caught:
        check_model_id("nosuchprovider/xyz")
    message = str(caught.value)
    assert message.startswith("unknown provider nosuchprovider in nosuchprovider/xyz: ")
    assert "openai, anthropic, gemini, groq, openrouter, ollama and" in message
    assert "`zizou models` lists them all" in message
    assert caught.value.kind == "unknown_provider"
    with pytest.raises(UnknownProvider, match=r"did you mean openai\?"):
        check_model_id("opneai/gpt-4o")


@pytest.mark.parametrize(
    "model_id",
    [
        "deepseek/a-model-the-map-does-not-list",  # litellm routes any model of a known provider
        "modelscope/qwen",  # known only from litellm's LlmProviders enum
        "aihubmix/anything",  # known only from its OpenAI-compatible provider list
        "ollama_chat/qwen2.5-coder",
        "groq/openai/gpt-oss-120b",
    ],
)
def test_a_known_providers_model_goes_even_when_the_map_does_not_list_it(model_id: str) -> None:
    check_model_id(model_id)


def test_a_local_server_takes_any_name() -> None:
    check_model_id("openai/test-model", "http://127.0.0.1:9/v1")
    check_model_id("my-local-model", "http://127.0.0.1:9/v1")
    check_model_id("openai/gpt-4o-typo", "http://127.0.0.1:9/v1")


def test_an_unlisted_model_close_to_a_listed_one_is_a_warning_only() -> None:
    check_model_id("openai/gpt-4o-typo")
    warning = model_warning("openai/gpt-4o-typo")
    assert warning is not None and "did you mean openai/gpt-4o?" in warning
    assert model_warning("openai/gpt-4o-typo", "http://127.0.0.1:9/v1") is None
    assert model_warning("openai/zq-nothing-like-it") is None
    assert model_warning("openai/gpt-4o") is None


def test_a_provider_with_no_model_is_a_usage_error() -> None:
    with pytest.raises(UnknownModel, match="openai/MODEL"):
        check_model_id("openai/")


def test_closest_prefers_the_name_the_typo_extends() -> None:
    names = {n: n for n in ["gpt-4", "gpt-4o", "gpt-4o-mini", "gpt-4-turbo"]}
    assert closest("gpt-4o-typo", names) == "gpt-4o"
    assert closest("gpt-4o-mni", names) == "gpt-4o-mini"
    assert closest("zzz", names) is None


def test_the_provider_lists_come_from_litellms_files() -> None:
    known = known_providers()
    assert known[:6] == ["openai", "anthropic", "gemini", "groq", "openrouter", "ollama"]
    assert {"deepseek", "mistral", "xai", "vertex_ai", "bedrock"} <= set(known)
    assert is_known_provider("OpenAI") and is_known_provider("ollama_chat")
    assert not is_known_provider("nosuchprovider")
    assert "deepseek/deepseek-chat" in chat_models("deepseek")


def test_open_model_checks_the_id_before_the_key(
    zizou_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOSUCHPROVIDER_API_KEY", raising=False)
    with pytest.raises(UnknownProvider):
        open_model("nosuchprovider/xyz", None)
    warnings: list[str] = []
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    with pytest.raises(MissingKey, match="No key for deepseek") as caught:
        open_model("deepseek/brand-new-model", None, warn=warnings.append)
    assert caught.value.kind == "missing_key" and warnings == []
