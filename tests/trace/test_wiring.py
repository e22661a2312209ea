"""What the debug log learns from the model: how it is called (never its key), and which exact
key values to redact, through wrappers such as the retry layer."""

from __future__ import annotations

from typing import Any

from zizou.contracts.protocols import Model
from zizou.providers import make_model
from zizou.providers.settings import RetrySettings, TimeoutSettings
from zizou.trace import model_call_parameters, session_secrets


class Described(Model):
    id = "x/y"
    api_key = "sk-described-secret"

    def call_parameters(self) -> dict[str, Any]:
        return {"model": self.id, "stream": True, "api_key": self.api_key}


def test_call_parameters_come_from_the_real_model_through_the_retry_layer() -> None:
    model = make_model("openai/gpt-test", "http://127.0.0.1:9/v1", "sk-inner-secret-0000")
    params = model_call_parameters(model)
    assert params["model"] == "openai/gpt-test"
    assert params["api_base"] == "http://127.0.0.1:9/v1"
    assert params["stream"] is True and params["num_retries"] == 0 and params["max_retries"] == 0
    assert params["retry"] == RetrySettings().model_dump()
    assert params["timeouts"] == TimeoutSettings().model_dump()
    assert "api_key" not in params and "sk-inner-secret-0000" not in repr(params)


def test_a_model_that_describes_itself_is_believed_but_its_key_is_dropped() -> None:
    assert model_call_parameters(Described()) == {"model": "x/y", "stream": True}


def test_secrets_include_the_wrapped_models_key_and_secret_env_values() -> None:
    environ = {"GROQ_API_KEY": "gsk-from-the-env-1234", "LANG": "C.UTF-8"}
    model = make_model("openai/gpt-test", "http://127.0.0.1:9/v1", "sk-inner-secret-0000")
    secrets = session_secrets(model, environ)
    assert "sk-inner-secret-0000" in secrets and "gsk-from-the-env-1234" in secrets
    assert "C.UTF-8" not in secrets
