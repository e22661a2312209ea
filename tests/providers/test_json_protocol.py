"""The JSON reply protocol around the real LiteLLMModel, over litellm's real HTTP path to the
loopback server: no tools go out, the protocol is in the system prompt, replies become tool
calls, a bad reply gets one re-ask, and the history is rewritten as plain turns."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from loopback import LoopbackServer
from waiting import scaled

from zizou.contracts.protocols import ModelReply, ModelRequest, TextPiece, ToolCall
from zizou.providers import LiteLLMModel, make_model
from zizou.providers.json_protocol import JsonProtocolModel, uses_json_protocol, with_protocol
from zizou.providers.retry import RetryingModel
from zizou.tools import default_registry

KEY = "sk-test-0123456789abcdefXYZ"
REGISTRY = default_registry()
STATE_TOOLS = ("update_state", "get_instructions")
TOOLS = [t for t in REGISTRY.schemas() if t["function"]["name"] not in STATE_TOOLS]
ASK = [{"role": "user", "content": "what do my notes say?"}]
REQUEST = ModelRequest(system="You are zizou.", messages=ASK, tools=TOOLS, stable_chars=6)


@pytest.fixture(autouse=True)
def no_stdout(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    yield
    assert capfd.readouterr().out == ""


def envelope(**fields: Any) -> dict[str, Any]:
    """A scripted reply whose text is the protocol's JSON object."""
    return {"text": json.dumps(fields)}


async def run(
    srv: LoopbackServer, request: ModelRequest = REQUEST, model: str = "openai/loopback"
) -> tuple[list[Any], ModelReply]:
    wrapped = JsonProtocolModel(LiteLLMModel(model, api_base=srv.base_url, api_key=KEY))
    events = [event async for event in wrapped.stream(request)]
    reply = events[-1]
    assert isinstance(reply, ModelReply)
    return events[:-1], reply


@pytest.mark.slow  # a zizou process, or litellm imported
async def test_no_tools_go_out_and_the_system_prompt_teaches_the_protocol() -> None:
    script = [envelope(messageToUser="Hello.")]
    with LoopbackServer(script) as srv:
        await run(srv)
    [body] = srv.chat_requests
    assert "tools" not in body and "tool_choice" not in body
    system = body["messages"][0]["content"]
    assert system.startswith("You are zizou.\n\n# REPLY FORMAT\n")
    assert '{"messageToUser"?: string, "toolCalls"?: [{"name": string, "arguments": object}]}' in (
        system
    )
    read_file = next(t["function"] for t in TOOLS if t["function"]["name"] == "read_file")
    first = " ".join(read_file["description"].split("\n\n")[0].split())
    schema = json.dumps(read_file["parameters"], separators=(",", ":"))
    assert f"- read_file: {first}\n  parameters: {schema}" in system
    assert all(f"- {t['function']['name']}: " in system for t in TOOLS)
    assert "diff" not in system.split("## Tools")[0]  # no update_state offered
    assert body["messages"][1:] == ASK


async def test_a_tool_call_in_the_reply_becomes_a_tool_call_and_no_json_is_streamed() -> None:
    calls = [{"name": "read_file", "arguments": {"path": "notes.txt"}}, {"name": "glob"}]
    script = [envelope(messageToUser="Reading your notes.", toolCalls=calls)]
    with LoopbackServer(script) as srv:
        pieces, reply = await run(srv)
    assert pieces == [TextPiece("Reading your notes.")]
    assert reply.text == "Reading your notes."
    assert reply.tool_calls == (
        ToolCall("json_1", "read_file", '{"path": "notes.txt"}'),
        ToolCall("json_2", "glob", "{}"),
    )
    assert reply.finish_reason == "tool_calls"
    assert reply.usage.input_tokens > 0 and reply.usage.output_tokens > 0


async def test_a_fenced_reply_among_prose_is_read() -> None:
    obj = {"toolCalls": [{"name": "read_file", "arguments": '{"path": "a.txt"}'}]}
    text = f"Sure! Here it is:\n```json\n{json.dumps(obj, indent=2)}\n```\nHope that helps {{:"
    with LoopbackServer([{"text": text}]) as srv:
        pieces, reply = await run(srv)
    assert pieces == [] and reply.text == ""
    assert reply.tool_calls == (ToolCall("json_1", "read_file", '{"path": "a.txt"}'),)
    assert len(srv.chat_requests) == 1


async def test_prose_around_a_bare_object_is_tolerated() -> None:
    text = 'I will answer now. {"messageToUser": "It says {buy milk}."} That is all.'
    with LoopbackServer([{"text": text}]) as srv:
        pieces, reply = await run(srv)
    assert reply.text == "It says {buy milk}." and reply.tool_calls == ()
    assert pieces == [TextPiece("It says {buy milk}.")]


async def test_an_invalid_reply_gets_one_re_ask_then_falls_back_to_its_text(
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = [
        {"text": "I think I should read notes.txt", "prompt_tokens": 100, "completion_tokens": 9},
        {"text": "{'toolCalls': oops", "prompt_tokens": 130, "completion_tokens": 6},
    ]
    with (
        caplog.at_level(logging.WARNING, logger="zizou.providers.json_protocol"),
        LoopbackServer(script) as srv,
    ):
        pieces, reply = await run(srv)
    first, second = srv.chat_requests
    assert second["messages"][:-2] == first["messages"]
    assert second["messages"][-2] == {
        "role": "assistant",
        "content": "I think I should read notes.txt",
    }
    correction = second["messages"][-1]
    assert correction["role"] == "user"
    assert "there is no JSON object in it" in correction["content"]
    assert "only the JSON object" in correction["content"]
    assert reply.text == "{'toolCalls': oops" and reply.tool_calls == ()
    assert pieces == [TextPiece("{'toolCalls': oops")]
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (230, 15)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2 and "asking again" in warnings[0]
    assert "taken as the answer" in warnings[1]


async def test_a_re_ask_that_fits_runs_its_calls_and_counts_both_attempts() -> None:
    bad = {"toolCalls": [{"arguments": {"path": "a.txt"}}], "prompt_tokens": 50}
    script = [
        {"text": json.dumps(bad), "prompt_tokens": 50, "completion_tokens": 5},
        {**envelope(toolCalls=[{"name": "read_file", "arguments": {"path": "a.txt"}}])},
    ]
    script[1]["prompt_tokens"], script[1]["completion_tokens"] = 70, 7
    with LoopbackServer(script) as srv:
        _, reply = await run(srv)
    assert "toolCalls.0.name: Field required" in srv.chat_requests[1]["messages"][-1]["content"]
    assert [c.name for c in reply.tool_calls] == ["read_file"]
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (120, 12)


HISTORY = [
    {"role": "user", "content": "what do my notes say?"},
    {
        "role": "assistant",
        "content": "Reading them.",
        "tool_calls": [
            {
                "id": "json_1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "notes.txt"}'},
            },
            {"id": "json_2", "type": "function", "function": {"name": "glob", "arguments": ""}},
        ],
    },
    {"role": "tool", "tool_call_id": "json_1", "content": "1\tbuy milk", "name": "read_file"},
    {"role": "tool", "tool_call_id": "json_2", "content": "notes.txt", "name": "glob"},
    {"role": "user", "content": "<reminder>be brief</reminder>"},
]


async def test_history_with_tool_calls_is_sent_as_plain_turns() -> None:
    request = ModelRequest(system="You are zizou.", messages=HISTORY, tools=TOOLS)
    with LoopbackServer([envelope(messageToUser="They say: buy milk.")]) as srv:
        _, reply = await run(srv, request)
    assert reply.text == "They say: buy milk."
    [body] = srv.chat_requests
    sent = body["messages"][1:]
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert all("tool_calls" not in m and "tool_call_id" not in m for m in sent)
    assert json.loads(sent[1]["content"]) == {
        "messageToUser": "Reading them.",
        "toolCalls": [
            {"name": "read_file", "arguments": {"path": "notes.txt"}},
            {"name": "glob", "arguments": {}},
        ],
    }
    assert sent[2]["content"] == (
        "Results:\n\n"
        '[json_1] read_file {"path": "notes.txt"}:\n1\tbuy milk\n\n'
        "[json_2] glob:\nnotes.txt\n\n"
        "<reminder>be brief</reminder>"
    )


def state_tools() -> list[dict[str, Any]]:
    """read_file, and the two tools the protocol's own fields call (the real ones)."""
    extra = [tool.schema() for tool in REGISTRY if tool.name in STATE_TOOLS]
    assert len(extra) == 2
    return [*TOOLS[:1], *extra]


@pytest.mark.parametrize(
    ("diff", "argument"),
    [([{"op": "add", "path": "/notes/-", "value": "x"}], "patch"), ({"goal": "g"}, "merge")],
)
async def test_diff_and_request_instruction_become_calls_when_offered(
    diff: Any, argument: str
) -> None:
    script = [envelope(diff=diff, requestInstruction="git-commit")]
    request = ModelRequest(system="s", messages=ASK, tools=state_tools())
    with LoopbackServer(script) as srv:
        _, reply = await run(srv, request)
    system = srv.chat_requests[0]["messages"][0]["content"]
    assert '"diff"?: array | object, "requestInstruction"?: string}' in system
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("update_state", {argument: diff}),
        ("get_instructions", {"name": "git-commit"}),
    ]


async def test_diff_and_request_instruction_are_dropped_when_not_offered() -> None:
    script = [envelope(messageToUser="ok", diff={"goal": "g"}, requestInstruction="x")]
    with LoopbackServer(script) as srv:
        _, reply = await run(srv)
    assert reply.text == "ok" and reply.tool_calls == ()


async def test_an_inactive_wrapper_passes_native_tool_calls_through() -> None:
    call = {"name": "read_file", "arguments": '{"path": "a.txt"}'}
    with LoopbackServer([{"tool_calls": [call]}]) as srv:
        inner = LiteLLMModel("openai/loopback", api_base=srv.base_url, api_key=KEY)
        wrapped = JsonProtocolModel(inner, lambda: False)
        events = [e async for e in wrapped.stream(REQUEST)]
    assert srv.chat_requests[0]["tools"] == TOOLS
    assert events[-1].tool_calls[0].name == "read_file"
    assert wrapped.call_parameters()["protocol"] == "tools"


@pytest.mark.parametrize(
    ("model_id", "protocol", "json_protocol"),
    [
        ("openai/loopback", "auto", False),  # unknown to litellm: native tool calls
        ("ollama_chat/qwen2.5-coder", "auto", False),
        ("gpt-4o", "auto", False),
        ("anthropic/claude-sonnet-4-5", "auto", False),
        ("ollama/llama2", "auto", True),  # litellm knows it and says no function calling
        ("gpt-3.5-turbo-instruct", "auto", True),
        ("gpt-4o", "json", True),
        ("ollama/llama2", "tools", False),
    ],
)
def test_which_models_speak_the_json_protocol(
    model_id: str, protocol: str, json_protocol: bool
) -> None:
    assert uses_json_protocol(model_id, protocol) is json_protocol


def test_an_unknown_protocol_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'xml'"):
        uses_json_protocol("gpt-4o", "xml")


def test_with_protocol_wraps_only_where_the_protocol_applies() -> None:
    model = LiteLLMModel("openai/loopback")
    assert with_protocol(model, model.id, "tools") is model
    assert with_protocol(model, model.id, "auto") is model
    wrapped = with_protocol(model, model.id, "json")
    assert isinstance(wrapped, JsonProtocolModel) and wrapped.active
    assert wrapped.call_parameters()["protocol"] == "json"
    llama = with_protocol(LiteLLMModel("ollama/llama2"), "ollama/llama2", "auto")
    assert isinstance(llama, JsonProtocolModel) and llama.active


def test_make_model_puts_the_protocol_inside_the_retry_layer() -> None:
    model = make_model("openai/loopback", "http://127.0.0.1:9/v1", protocol="json")
    assert isinstance(model, RetryingModel) and isinstance(model.inner, JsonProtocolModel)
    assert model.call_parameters()["protocol"] == "json"
    plain = make_model("openai/loopback", "http://127.0.0.1:9/v1")
    assert isinstance(plain, RetryingModel) and isinstance(plain.inner, LiteLLMModel)


@pytest.mark.slow  # a zizou process, or litellm imported
def test_deciding_auto_waits_for_the_first_request_to_import_litellm() -> None:
    code = (
        "import sys; from zizou.providers import make_model\n"
        "m = make_model('ollama/llama2', protocol='auto')\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
        "assert m.inner.active and 'litellm' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=scaled(60))


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"OLLAMA_HOST": "gpu-box:11500"}, "http://gpu-box:11500"),
        ({"OLLAMA_HOST": "0.0.0.0"}, "http://127.0.0.1:11434"),
        ({"OLLAMA_HOST": "https://ollama.lan"}, "https://ollama.lan:443"),
        ({"OLLAMA_BASE_URL": "http://x:1/v1", "OLLAMA_HOST": "y:2"}, "http://x:1"),
        ({"OLLAMA_API_BASE": "http://z:3", "OLLAMA_HOST": "y:2"}, "http://z:3"),
        ({}, None),
    ],
)
def test_ollama_models_default_to_the_address_the_environment_gives(
    environ: dict[str, str], expected: str | None
) -> None:
    for model_id in ("ollama/llama3", "ollama_chat/qwen2.5-coder"):
        model = make_model(model_id, protocol="tools", environ=environ)
        assert isinstance(model, RetryingModel) and isinstance(model.inner, LiteLLMModel)
        assert model.inner.api_base == expected


def test_an_explicit_api_base_wins_and_other_providers_ignore_ollama_variables() -> None:
    environ = {"OLLAMA_HOST": "gpu-box:11500"}
    given = make_model("ollama/llama3", "http://mine:1", protocol="tools", environ=environ)
    other = make_model("openai/gpt-4o", protocol="tools", environ=environ)
    assert isinstance(given, RetryingModel) and isinstance(given.inner, LiteLLMModel)
    assert isinstance(other, RetryingModel) and isinstance(other.inner, LiteLLMModel)
    assert (given.inner.api_base, other.inner.api_base) == ("http://mine:1", None)
