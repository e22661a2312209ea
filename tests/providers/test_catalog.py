"""The provider catalog, the local model map, and key checks against local servers (no network)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from loopback import LoopbackServer

from zizou.errors import ProviderError
from zizou.providers.catalog import (
    PROVIDERS,
    env_var_for,
    find_provider,
    model_info,
    needs_key,
    provider_of,
)
from zizou.providers.key_check import list_ollama_models, validate_key

GOOD = "sk-good-key-0123456789"


class KeyServer:
    """A stub provider: accepts GOOD in the provider's header, answers 401 (or `bad_status`)
    otherwise, and serves Ollama's /api/tags. Records (path, headers) of every request."""

    def __init__(self, bad_status: int = 401) -> None:
        self.bad_status = bad_status
        self.seen: list[tuple[str, dict[str, str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.seen.append((self.path, headers))
                if self.path == "/api/tags":
                    body = {"models": [{"name": "qwen2.5-coder:7b"}, {"name": "llama3:8b"}]}
                    return self._send(200, body)
                offered = {
                    headers.get("authorization"),
                    headers.get("x-api-key"),
                    headers.get("x-goog-api-key"),
                }
                if GOOD in offered or f"Bearer {GOOD}" in offered:
                    return self._send(200, {"data": []})
                return self._send(owner.bad_status, {"error": {"message": "Incorrect API key"}})

            def _send(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def key_server() -> Iterator[KeyServer]:
    server = KeyServer()
    yield server
    server.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_catalog_lists_the_providers_a_user_expects() -> None:
    assert [p.id for p in PROVIDERS] == [
        "openai",
        "anthropic",
        "gemini",
        "groq",
        "openrouter",
        "ollama",
    ]
    for entry in PROVIDERS:
        assert entry.name and entry.default_model and entry.base_url.startswith("http")
        assert provider_of(entry.default_model) in (entry.id, "ollama_chat")
        assert entry.needs_key == (entry.env_var is not None)
    ollama = find_provider("ollama")
    assert ollama is not None and ollama.base_url == "http://127.0.0.1:11434"
    assert not ollama.needs_key and find_provider("ollama_chat") is ollama


def test_any_litellm_provider_typed_in_full_follows_the_env_convention() -> None:
    assert find_provider("deepseek") is None
    assert provider_of("deepseek/deepseek-chat") == "deepseek"
    assert env_var_for("deepseek") == "DEEPSEEK_API_KEY" and needs_key("deepseek")
    assert env_var_for("ollama_chat") is None and not needs_key("ollama")


@pytest.mark.parametrize(
    ("model_id", "window"),
    [
        ("openai/gpt-4o", 128000),
        ("gpt-4o", 128000),
        ("anthropic/claude-sonnet-4-5", 200000),
        ("gemini/gemini-2.5-pro", 1048576),
        ("ollama_chat/llama3", 8192),
    ],
)
def test_known_models_get_their_window_and_prices_from_the_local_map(
    model_id: str, window: int
) -> None:
    info = model_info(model_id)
    assert info is not None and info.context_window == window
    assert info.input_cost_per_token is not None and info.output_cost_per_token is not None
    cost = info.cost(1000, 100)
    assert cost is not None and cost >= 0


def test_unknown_models_have_no_info_and_cost_is_unknown() -> None:
    assert model_info("openai/loopback-test-model") is None
    assert model_info("openrouter/nobody/knows-this") is None
    assert model_info("groq/gpt-4o") is None  # a bare name known for another provider
    info = model_info("gpt-4o")
    assert info is not None
    unpriced = type(info)(8000, None, None, 1e-6)
    assert unpriced.cost(10, 10) is None


def test_the_model_map_is_read_without_importing_litellm() -> None:
    code = (
        "import sys; from zizou.providers.catalog import model_info;"
        "assert model_info('gpt-4o').context_window > 0;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'httpx')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_good_key_passes_against_the_loopback_server() -> None:
    with LoopbackServer() as srv:
        check = validate_key("openai", GOOD, api_base=srv.base_url)
        requests = list(srv.requests)
    assert check.ok and check.status == 200 and "accepted" in check.message
    assert [(r.method, r.path) for r in requests] == [("GET", "/v1/models")]
    assert requests[0].headers["authorization"] == f"Bearer {GOOD}"


def test_a_401_fails_with_a_clear_message(key_server: KeyServer) -> None:
    check = validate_key("openai", "sk-bad-key-0000000000", api_base=f"{key_server.base}/v1")
    assert not check.ok and check.rejected and check.status == 401
    assert "OpenAI rejected the key (HTTP 401)" in check.message
    assert "https://platform.openai.com/api-keys" in check.message
    assert "sk-bad" not in check.message


@pytest.mark.parametrize(
    ("provider", "path", "header", "value"),
    [
        ("anthropic", "/v1/models", "x-api-key", GOOD),
        ("gemini", "/v1/models", "x-goog-api-key", GOOD),
        ("groq", "/v1/models", "authorization", f"Bearer {GOOD}"),
        ("openrouter", "/v1/key", "authorization", f"Bearer {GOOD}"),
    ],
)
def test_each_provider_is_checked_its_own_way(
    key_server: KeyServer, provider: str, path: str, header: str, value: str
) -> None:
    check = validate_key(provider, GOOD, api_base=f"{key_server.base}/v1")
    assert check.ok, check.message
    seen_path, headers = key_server.seen[-1]
    assert seen_path == path and headers[header] == value
    assert GOOD not in seen_path  # never in the URL
    if provider == "anthropic":
        assert headers["anthropic-version"] == "2023-06-01"


def test_google_answers_a_bad_key_with_400_and_that_counts_as_rejected() -> None:
    server = KeyServer(bad_status=400)
    try:
        check = validate_key("gemini", "AIza-bad", api_base=f"{server.base}/v1beta")
    finally:
        server.close()
    assert check.rejected and "Google Gemini rejected the key (HTTP 400)" in check.message


def test_other_failures_are_not_called_a_bad_key(key_server: KeyServer) -> None:
    key_server.bad_status = 500
    check = validate_key("openai", "sk-whatever-000000", api_base=f"{key_server.base}/v1")
    assert not check.ok and not check.rejected and "answered HTTP 500" in check.message
    down = validate_key("openai", GOOD, api_base=f"http://127.0.0.1:{free_port()}/v1", timeout=2)
    assert not down.ok and down.status is None and "could not reach OpenAI" in down.message


def test_unknown_providers_are_checked_only_at_a_given_address(key_server: KeyServer) -> None:
    assert not validate_key("deepseek", GOOD).ok
    assert validate_key("deepseek", GOOD, api_base=f"{key_server.base}/v1").ok
    assert "no key" in validate_key("openai", "").message


def test_ollama_lists_its_models_and_validates_without_a_key(key_server: KeyServer) -> None:
    assert list_ollama_models(key_server.base) == ["qwen2.5-coder:7b", "llama3:8b"]
    assert list_ollama_models(f"{key_server.base}/v1/") == ["qwen2.5-coder:7b", "llama3:8b"]
    check = validate_key("ollama", None, api_base=key_server.base)
    assert check.ok and "(2 models)" in check.message
    with pytest.raises(ProviderError, match="ollama serve"):
        list_ollama_models(f"http://127.0.0.1:{free_port()}", timeout=2)
