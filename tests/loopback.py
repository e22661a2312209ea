"""A loopback OpenAI-compatible chat server that plays a script, so litellm's real HTTP path runs
in tests without a network.

Stdlib only. It serves in a background thread of the current process: in-process tests use
`with LoopbackServer(script) as srv: srv.base_url`, and end-to-end tests start the real `zizou`
CLI in a subprocess that connects over loopback. Standalone, for manual runs and benchmarks:
`python tests/loopback.py --script script.json --port 0 [--repeat]` prints the base URL.

Each request consumes one scripted reply (a `Reply` or a plain dict of its fields); when the
script runs out the server answers HTTP 500 "script exhausted", so a test that asks more than it
planned fails loudly.
"""

from __future__ import annotations

import argparse
import itertools
import json
import socket
import struct
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

DEFAULT_ERRORS = {401: "Incorrect API key provided.", 429: "Rate limit reached.", 500: "Oops."}


@dataclass(frozen=True)
class ScriptedToolCall:
    name: str
    arguments: str = "{}"  # sent verbatim, so malformed JSON can be scripted
    id: str | None = None  # default: call_1, call_2, ... unique per server


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    finish_reason: str | None = None  # default: "tool_calls" if there are tool calls, else "stop"
    prompt_tokens: int | None = None  # default: estimated from the request size
    completion_tokens: int | None = None
    status: int = 200  # anything else answers with a JSON error body
    error: str | None = None
    error_type: str | None = None
    retry_after: float | None = None  # sent as a Retry-After header
    delay_s: float = 0.0  # before the first byte
    stall_s: float = 0.0  # a pause mid-stream, after `stall_after` pieces of text or arguments
    stall_after: int = 1
    chunk_delay_s: float = 0.0  # between every chunk
    truncate: bool | str = False  # close without finish_reason or [DONE]; "reset": with a RST
    pieces: int = 3  # how many chunks the text and each arguments string are split into

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown reply keys {sorted(unknown)}; known: {sorted(known)}")
        calls = tuple(_tool_call(c) for c in data.get("tool_calls", ()))
        return cls(**{**data, "tool_calls": calls})


def _tool_call(data: ScriptedToolCall | dict[str, Any]) -> ScriptedToolCall:
    if isinstance(data, ScriptedToolCall):
        return data
    args = data.get("arguments", "{}")
    args = args if isinstance(args, str) else json.dumps(args)
    return ScriptedToolCall(name=data["name"], arguments=args, id=data.get("id"))


def as_reply(item: Reply | dict[str, Any]) -> Reply:
    return item if isinstance(item, Reply) else Reply.from_dict(item)


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any = None  # parsed JSON, or None


class LoopbackServer:
    """Serves the script on 127.0.0.1 (port 0: a free one); records every request."""

    def __init__(
        self,
        script: Iterable[Reply | dict[str, Any]] = (),
        *,
        repeat: bool = False,  # cycle the script instead of running out
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.script = [as_reply(r) for r in script]
        self.repeat = repeat
        self.host = host
        self.port = port
        self.requests: list[RecordedRequest] = []
        self.closing = threading.Event()
        self.stalling = threading.Event()  # set when a stream reaches its scripted stall
        self._lock = threading.Lock()
        self._served = 0
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
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The parsed bodies of every chat completion request, in order."""
        with self._lock:
            return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def add(self, *replies: Reply | dict[str, Any]) -> None:
        with self._lock:
            self.script.extend(as_reply(r) for r in replies)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self.script) - self._served

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def next_reply(self) -> Reply | None:
        with self._lock:
            if self.repeat and self.script:
                reply = self.script[self._served % len(self.script)]
            elif self._served < len(self.script):
                reply = self.script[self._served]
            else:
                return None
            self._served += 1
            return reply

    def new_call_id(self) -> str:
        return f"call_{next(self._ids)}"


def _split(text: str, pieces: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _estimate(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
    completion = reply.completion_tokens
    if completion is None:
        size = len(reply.text) + sum(len(c.name) + len(c.arguments) for c in reply.tool_calls)
        completion = max(1, size // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _deltas(reply: Reply, ids: list[str]) -> Iterator[dict[str, Any]]:
    yield {"role": "assistant", "content": ""}
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
            self._error(404, "not found", "not_found_error")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        self.owner.record(RecordedRequest("POST", self.path, self._headers(), body))
        reply = None
        if self.path.rstrip("/").endswith("/chat/completions"):
            reply = self.owner.next_reply()
        try:
            if reply is None and not self.path.rstrip("/").endswith("/chat/completions"):
                self._error(404, "not found", "not_found_error")
            elif reply is None:
                self._error(500, "script exhausted", "server_error")
            else:
                self._answer(reply, body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancel): nothing more to say

    def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
        if reply.delay_s and self.owner.closing.wait(reply.delay_s):
            return
        if reply.status != 200:
            message = reply.error or DEFAULT_ERRORS.get(reply.status, f"error {reply.status}")
            kind = reply.error_type or "invalid_request_error"
            self._error(reply.status, message, kind, reply.retry_after)
        elif body.get("stream"):
            self._stream(reply, stream_chunks(reply, body, self._ids(reply)))
        else:
            data = json.dumps(completion(reply, body, self._ids(reply))).encode()
            self._json(200, data[: len(data) // 2] if reply.truncate else data, size=len(data))

    def _ids(self, reply: Reply) -> list[str]:
        return [c.id or self.owner.new_call_id() for c in reply.tool_calls]

    def _stream(self, reply: Reply, chunks: list[dict[str, Any]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for number, chunk in enumerate(chunks):
            pause = reply.chunk_delay_s if number else 0.0
            pause += reply.stall_s if number == reply.stall_after + 1 else 0.0  # 0 is the role
            if reply.stall_s and number == reply.stall_after + 1:
                self.owner.stalling.set()
            if pause and self.owner.closing.wait(pause):
                return
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        if reply.truncate == "reset":  # an abrupt close, as when a proxy dies mid-stream
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        elif not reply.truncate:
            self.wfile.write(b"data: [DONE]\n\n")

    def _error(self, status: int, message: str, kind: str, retry: float | None = None) -> None:
        error = {"message": message, "type": kind, "code": status}
        headers = {"Retry-After": f"{retry:g}"} if retry is not None else {}
        self._json(status, json.dumps({"error": error}).encode(), headers=headers)

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
    parser = argparse.ArgumentParser(description="Serve a scripted OpenAI-compatible chat API.")
    parser.add_argument("--script", required=True, help="a JSON file holding a list of replies")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--repeat", action="store_true", help="cycle the script forever")
    args = parser.parse_args(argv)
    script = json.loads(Path(args.script).read_text(encoding="utf-8"))
    server = LoopbackServer(script, repeat=args.repeat, host=args.host, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
