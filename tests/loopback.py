"""A loopback chat server that plays a script, so litellm's real HTTP path runs in tests without
a network. It speaks OpenAI's chat completions (POST `.../chat/completions`) and Anthropic's
Messages API (POST `.../messages`).

Stdlib only. It serves in a background thread of the current process: in-process tests use
`with LoopbackServer(script) as srv: srv.base_url`, and end-to-end tests start the real `zizou`
CLI in a subprocess that connects over loopback. litellm appends `/v1/messages` to an Anthropic
`api_base`, so `anthropic/...` models are pointed at `srv.root_url`. Standalone, for manual runs
and benchmarks: `python tests/loopback.py --script script.json --port 0 [--repeat] [--log FILE]`
prints the base URL.

Each chat request takes one scripted reply (a `Reply` or a plain dict of its fields): the first
unused one, in script order, whose `match` regex finds the request's body text or that has no
`match`. A reply whose `match` does not fit is left for a later request, which keeps scripts of
concurrent or nested conversations deterministic. When nothing fits the server answers HTTP 500
"script exhausted", so a test that asks more than it planned fails loudly. With a log file every
chat request is appended to it as one JSON line, so a person can read exactly what was sent.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import socket
import struct
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

DEFAULT_ERRORS = {401: "Incorrect API key provided.", 429: "Rate limit reached.", 500: "Oops."}
ANTHROPIC_ERRORS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}

Dialect = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: str = "{}"  # sent verbatim, so malformed JSON can be scripted
    id: str | None = None  # default: call_1, call_2, ... (toolu_1, ... for Anthropic) per server


@dataclass(frozen=True)
class Reply:
    text: str = ""
    reasoning: str = ""  # streamed first, as `reasoning_content` deltas (Anthropic: thinking)
    reasoning_key: str = "reasoning_content"  # vLLM and Ollama name the delta `reasoning`
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    finish_reason: str | None = None  # default: "tool_calls" if there are tool calls, else "stop"
    prompt_tokens: int | None = None  # the whole prompt, cached tokens included; default: estimated
    completion_tokens: int | None = None
    cache_read_tokens: int = 0  # prompt tokens served from the prompt cache
    cache_write_tokens: int = 0  # prompt tokens written to it (reported by Anthropic only)
    match: str | None = None  # a regex (re.search, DOTALL) the request's JSON body text must fit
    status: int = 200  # anything else answers with a JSON error body
    error: str | None = None
    error_type: str | None = None
    retry_after: float | None = None  # sent as a Retry-After header
    delay_s: float = 0.0  # before the first byte
    stall_s: float = 0.0  # a pause mid-stream, after `stall_after` pieces (reasoning, text, ...)
    stall_after: int = 1
    chunk_delay_s: float = 0.0  # between every chunk
    truncate: bool | str = False  # close without finish_reason or [DONE]; "reset": with a RST
    pieces: int = 3  # how many chunks the text and each arguments string are split into

    def __post_init__(self) -> None:
        if self.match is not None:
            try:
                re.compile(self.match, re.DOTALL)
            except re.error as exc:
                raise ValueError(f"bad match regex {self.match!r}: {exc}") from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys {sorted(unknown)}; known: {sorted(known)}")
        calls = tuple(_tool_call(c) for c in data.get("tool_calls", ()))
        return cls(**{**data, "tool_calls": calls})

    def fits(self, body_text: str) -> bool:
        return self.match is None or re.search(self.match, body_text, re.DOTALL) is not None


def _tool_call(data: ScriptedToolCall | dict[str, Any]) -> ScriptedToolCall:
    if isinstance(data, ScriptedToolCall):
        return data
    args = data.get("arguments", "{}")
    args = args if isinstance(args, str) else json.dumps(args)
    return ScriptedToolCall(name=data["name"], arguments=args, id=data.get("id"))


def as_reply(item: Reply | dict[str, Any]) -> Reply:
    return item if isinstance(item, Reply) else Reply.from_dict(item)


def dialect_of(path: str) -> Dialect | None:
    """Which chat API a request path is for; None for anything else."""
    route = urlsplit(path).path.rstrip("/")
    if route.endswith("/chat/completions"):
        return "openai"
    return "anthropic" if route.endswith("/messages") else None


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any = None  # parsed JSON, or the text when it is not JSON, or None


class LoopbackServer:
    """Serves the script on 127.0.0.1 (port 0: a free one); records every request."""

    def __init__(
        self,
        script: Iterable[Reply | dict[str, Any]] = (),
        *,
        repeat: bool = False,  # start the script over when no unused reply fits
        host: str = "127.0.0.1",
        port: int = 0,
        log_path: Path | None = None,  # append every chat request here as a JSON line
    ) -> None:
        self.script = [as_reply(r) for r in script]
        self.repeat = repeat
        self.host = host
        self.port = port
        self.log_path = log_path
        self.requests: list[RecordedRequest] = []
        self.closing = threading.Event()
        self.stalling = threading.Event()  # set when a stream reaches its scripted stall
        self._lock = threading.Lock()
        self._used: set[int] = set()
        self._chats = 0
        self._ids = itertools.count(1)
        self._httpd: ThreadingHTTPServer | None = None

    def start(self) -> LoopbackServer:
        httpd = ThreadingHTTPServer((self.host, self.port), _Handler)
        httpd.daemon_threads = True
        httpd.owner = self  # type: ignore[attr-defined]
        self._httpd = httpd
        self.port = httpd.server_address[1]
        thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="loopback", daemon=True
        )  # a short poll interval makes close() quick
        thread.start()
        return self

    def close(self) -> None:
        self.closing.set()  # wakes handlers sleeping in a delay or stall
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def root_url(self) -> str:
        """The server's root: the `api_base` for Anthropic models (litellm adds /v1/messages)."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The `api_base` for OpenAI-compatible models."""
        return f"{self.root_url}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The parsed bodies of every chat request (either API), in order."""
        with self._lock:
            return [r.body for r in self.requests if dialect_of(r.path)]

    def add(self, *replies: Reply | dict[str, Any]) -> None:
        with self._lock:
            self.script.extend(as_reply(r) for r in replies)

    @property
    def remaining(self) -> int:
        """Scripted replies no request has taken yet."""
        with self._lock:
            return len(self.script) - len(self._used)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)
            if dialect_of(request.path):
                self._chats += 1
                self._log({"seq": self._chats, "path": request.path, "body": request.body})

    def _log(self, entry: dict[str, Any]) -> None:
        if self.log_path is not None:
            with self.log_path.open("a", encoding="utf-8") as log:
                log.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def next_reply(self, body_text: str = "") -> Reply | None:
        """Take the first unused reply that fits the request; with `repeat`, a request that no
        unused reply fits starts a new round over the whole script."""
        with self._lock:
            index = self._first_fit(body_text)
            if index is None and self.repeat and self._used:
                self._used.clear()
                index = self._first_fit(body_text)
            if index is None:
                return None
            self._used.add(index)
            return self.script[index]

    def _first_fit(self, body_text: str) -> int | None:
        for index, reply in enumerate(self.script):
            if index not in self._used and reply.fits(body_text):
                return index
        return None

    def new_call_id(self, prefix: str = "call") -> str:
        return f"{prefix}_{next(self._ids)}"


def _split(text: str, pieces: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _prompt_tokens(reply: Reply, body: dict[str, Any]) -> int:
    if reply.prompt_tokens is not None:
        return reply.prompt_tokens
    size = len(json.dumps(body.get("messages", [])))
    size += len(json.dumps(body["system"])) if "system" in body else 0  # Anthropic's own field
    return max(1, size // 4)


def _completion_tokens(reply: Reply) -> int:
    if reply.completion_tokens is not None:
        return reply.completion_tokens
    size = len(reply.text) + sum(len(c.name) + len(c.arguments) for c in reply.tool_calls)
    return max(1, size // 4)


def _estimate(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    prompt, completion = _prompt_tokens(reply, body), _completion_tokens(reply)
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if reply.cache_read_tokens:  # OpenAI reports cache reads only; it writes without saying so
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cache_read_tokens}
    return usage


def _deltas(reply: Reply, ids: list[str]) -> Iterator[dict[str, Any]]:
    yield {"role": "assistant", "content": ""}
    for piece in _split(reply.reasoning, reply.pieces):
        yield {reply.reasoning_key: piece}
    for piece in _split(reply.text, reply.pieces):
        yield {"content": piece}
    for index, (call, call_id) in enumerate(zip(reply.tool_calls, ids, strict=True)):
        head = {"index": index, "id": call_id, "type": "function"}
        yield {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
        for piece in _split(call.arguments, reply.pieces):
            yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}


def _envelope(body: dict[str, Any], kind: str) -> dict[str, Any]:
    model = body.get("model", "loopback")
    return {"id": "chatcmpl-loopback", "object": kind, "created": int(time.time()), "model": model}


def stream_chunks(reply: Reply, body: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
    """The SSE payloads for a streamed reply, the way OpenAI sends them."""
    base = _envelope(body, "chat.completion.chunk")
    choice = {"index": 0, "finish_reason": None}
    chunks = [{**base, "choices": [{**choice, "delta": d}]} for d in _deltas(reply, ids)]
    if not reply.truncate:
        finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
        chunks.append({**base, "choices": [{**choice, "delta": {}, "finish_reason": finish}]})
        if (body.get("stream_options") or {}).get("include_usage"):
            chunks.append({**base, "choices": [], "usage": _estimate(reply, body)})
    return chunks


def completion(reply: Reply, body: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The JSON body for a reply to a request with stream=false."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.reasoning:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c, i in zip(reply.tool_calls, ids, strict=True)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    choice = {"index": 0, "message": message, "finish_reason": finish}
    return {
        **_envelope(body, "chat.completion"),
        "choices": [choice],
        "usage": _estimate(reply, body),
    }


def _anthropic_usage(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    """Anthropic counts the uncached rest as `input_tokens`, beside the cache reads and writes
    (litellm adds the three up again into `prompt_tokens`)."""
    cached = reply.cache_read_tokens + reply.cache_write_tokens
    return {
        "input_tokens": max(0, _prompt_tokens(reply, body) - cached),
        "cache_creation_input_tokens": reply.cache_write_tokens,
        "cache_read_input_tokens": reply.cache_read_tokens,
    }


def _stop_reason(reply: Reply) -> str:
    if reply.finish_reason is None:
        return "tool_use" if reply.tool_calls else "end_turn"
    return STOP_REASONS.get(reply.finish_reason, reply.finish_reason)


def _message(body: dict[str, Any]) -> dict[str, Any]:
    model = body.get("model", "loopback")
    return {"id": "msg_loopback", "type": "message", "role": "assistant", "model": model}


def _block_events(index: int, block: dict[str, Any], deltas: list[dict[str, Any]]) -> list[Any]:
    start = {"type": "content_block_start", "index": index, "content_block": block}
    middle = [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
    return [start, *middle, {"type": "content_block_stop", "index": index}]


def anthropic_events(reply: Reply, body: dict[str, Any], ids: list[str]) -> list[dict[str, Any]]:
    """The SSE events for a streamed reply, the way Anthropic's Messages API sends them."""
    usage = {**_anthropic_usage(reply, body), "output_tokens": 1}
    empty = {"content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**_message(body), **empty}},
        {"type": "ping"},
    ]
    index = 0
    if reply.reasoning:
        parts = [
            {"type": "thinking_delta", "thinking": p} for p in _split(reply.reasoning, reply.pieces)
        ]
        parts.append({"type": "signature_delta", "signature": "loopback"})
        events += _block_events(index, {"type": "thinking", "thinking": ""}, parts)
        index += 1
    if reply.text:
        texts = [{"type": "text_delta", "text": p} for p in _split(reply.text, reply.pieces)]
        events += _block_events(index, {"type": "text", "text": ""}, texts)
        index += 1
    for call, call_id in zip(reply.tool_calls, ids, strict=True):
        block = {"type": "tool_use", "id": call_id, "name": call.name, "input": {}}
        parts = _split(call.arguments, reply.pieces)
        events += _block_events(
            index, block, [{"type": "input_json_delta", "partial_json": p} for p in parts]
        )
        index += 1
    if not reply.truncate:
        stop = {"stop_reason": _stop_reason(reply), "stop_sequence": None}
        output = {"output_tokens": _completion_tokens(reply)}
        events += [{"type": "message_delta", "delta": stop, "usage": output}]
        events += [{"type": "message_stop"}]
    return events


def _tool_input(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except json.JSONDecodeError:
        return {}  # a whole message carries an object, so malformed arguments cannot be sent


def anthropic_message(reply: Reply, body: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The JSON body for an Anthropic request with stream=false."""
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [
        {"type": "tool_use", "id": i, "name": c.name, "input": _tool_input(c.arguments)}
        for c, i in zip(reply.tool_calls, ids, strict=True)
    ]
    usage = {**_anthropic_usage(reply, body), "output_tokens": _completion_tokens(reply)}
    return {
        **_message(body),
        "content": content,
        "stop_reason": _stop_reason(reply),
        "stop_sequence": None,
        "usage": usage,
    }


def _frame(payload: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; a stream ends when we close

    @property
    def owner(self) -> LoopbackServer:
        return self.server.owner  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        self.owner.record(RecordedRequest("GET", self.path, self._headers()))
        if self.path.rstrip("/").endswith("/models"):
            models = {"object": "list", "data": [{"id": "loopback", "object": "model"}]}
            self._json(200, json.dumps(models).encode())
        else:
            self._error("openai", 404, "not found", "not_found_error")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = raw.decode("utf-8", "replace")
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = text
        self.owner.record(RecordedRequest("POST", self.path, self._headers(), body))
        dialect = dialect_of(self.path)
        try:
            if dialect is None:
                self._error("openai", 404, "not found", "not_found_error")
            elif (reply := self.owner.next_reply(text)) is None:
                left = self.owner.remaining
                why = f"script exhausted: {left} scripted replies left, none fits this request"
                self._error(dialect, 500, why, "server_error")
            else:
                self._answer(dialect, reply, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancel): nothing more to say

    def _answer(self, dialect: Dialect, reply: Reply, body: dict[str, Any]) -> None:
        if reply.delay_s and self.owner.closing.wait(reply.delay_s):
            return
        ids = self._ids(reply, "toolu" if dialect == "anthropic" else "call")
        if reply.status != 200:
            message = reply.error or DEFAULT_ERRORS.get(reply.status, f"error {reply.status}")
            self._error(dialect, reply.status, message, reply.error_type, reply.retry_after)
        elif body.get("stream") and dialect == "anthropic":
            events = anthropic_events(reply, body, ids)
            deltas = [n for n, e in enumerate(events) if e["type"] == "content_block_delta"]
            stall_at = deltas[reply.stall_after] if len(deltas) > reply.stall_after else None
            self._stream(reply, [_frame(e, e["type"]) for e in events], stall_at, end=b"")
        elif body.get("stream"):
            chunks = stream_chunks(reply, body, ids)
            frames = [_frame(c) for c in chunks]
            self._stream(reply, frames, reply.stall_after + 1, end=b"data: [DONE]\n\n")
        else:
            whole = anthropic_message if dialect == "anthropic" else completion
            data = json.dumps(whole(reply, body, ids)).encode()
            self._json(200, data[: len(data) // 2] if reply.truncate else data, size=len(data))

    def _ids(self, reply: Reply, prefix: str) -> list[str]:
        return [c.id or self.owner.new_call_id(prefix) for c in reply.tool_calls]

    def _stream(self, reply: Reply, frames: list[bytes], stall_at: int | None, end: bytes) -> None:
        """Send the frames, pausing before frame `stall_at` (the first is a role or a start)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for number, frame in enumerate(frames):
            pause = reply.chunk_delay_s if number else 0.0
            if reply.stall_s and number == stall_at:
                pause += reply.stall_s
                self.owner.stalling.set()
            if pause and self.owner.closing.wait(pause):
                return
            self.wfile.write(frame)
            self.wfile.flush()
        if reply.truncate == "reset":  # an abrupt close, as when a proxy dies mid-stream
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif not reply.truncate:
            self.wfile.write(end)

    def _error(
        self,
        dialect: Dialect,
        status: int,
        message: str,
        kind: str | None = None,
        retry: float | None = None,
    ) -> None:
        """A JSON error body in the dialect's shape, with a Retry-After header if asked."""
        if dialect == "anthropic":
            kind = kind or ANTHROPIC_ERRORS.get(status, "api_error")
            error: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            kind = kind or "invalid_request_error"
            error = {"error": {"message": message, "type": kind, "code": status}}
        headers = {"Retry-After": f"{retry:g}"} if retry is not None else {}
        self._json(status, json.dumps(error).encode(), headers=headers)

    def _json(
        self,
        status: int,
        data: bytes,
        size: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data) if size is None else size))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _headers(self) -> dict[str, str]:
        return {name.lower(): value for name, value in self.headers.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Serve a scripted chat API (OpenAI chat completions and Anthropic messages)."
    )
    parser.add_argument("--script", required=True, help="a JSON file holding a list of replies")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--repeat", action="store_true", help="cycle the script forever")
    parser.add_argument("--log", type=Path, help="append every chat request to FILE (JSON lines)")
    args = parser.parse_args(argv)
    script = json.loads(Path(args.script).read_text(encoding="utf-8"))
    server = LoopbackServer(
        script, repeat=args.repeat, host=args.host, port=args.port, log_path=args.log
    ).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
