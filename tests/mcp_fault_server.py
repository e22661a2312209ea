"""An MCP server written with the SDK that misbehaves on request, for zizou's tests.

    python tests/mcp_fault_server.py                      # stdio, every tool below
    python tests/mcp_fault_server.py --hang-at-start      # never answers the handshake
    python tests/mcp_fault_server.py --slow-start 10      # answers after ten seconds
    python tests/mcp_fault_server.py --http PORT --require-header 'X-Token: abc'
    python tests/mcp_fault_server.py --raw-garbage        # answers a call with a broken line

Tools: `echo(text)`, `big(chars)` (a result of that many characters), `crash()` (the process
exits mid-call), `hang()` (never answers; a cancellation is written to $FAULT_MARKS/cancelled),
`garbage()` (the SDK sends a stray print to stderr, so `--raw-garbage` is a hand-written server
whose one tool answers with a line that is not JSON-RPC), `read_file(path)` (named
like one of zizou's), `picture()` (a small PNG), `fail()` (an `isError` result) and `broken`
(an input schema that is not valid JSON Schema). With $FAULT_MARKS set, it leaves files there
holding its process id: `started`, `serving` (after --slow-start), `cancelled`. A resource
`note://readme` and a prompt `review(topic)`. With `--http`, every request must carry the
header given, or gets a 401.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f1d6b20000000049454e44ae426082"
    )
).decode()
OBJECT = {"type": "object", "properties": {}}


def _tool(name: str, description: str, schema: dict[str, Any] | None = None) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema or OBJECT)


TOOLS = [
    _tool(
        "echo",
        "Says the text back.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    ),
    _tool(
        "big",
        "A long result.",
        {"type": "object", "properties": {"chars": {"type": "integer"}}, "required": ["chars"]},
    ),
    _tool("crash", "Exits in the middle of the call."),
    _tool("hang", "Never answers."),
    _tool("garbage", "Writes a line that is not JSON-RPC, then never answers."),
    _tool(
        "read_file",
        "A tool named like one of zizou's.",
        {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    _tool("picture", "Returns a one-pixel PNG."),
    _tool("fail", "Fails with isError."),
    _tool(
        "broken",
        "Its input schema is not valid JSON Schema.",
        {"type": "object", "properties": {"x": {"type": "nonsense"}}},
    ),
]


def _mark(name: str) -> None:
    """Leave `$FAULT_MARKS/<name>` holding this process's id, for a test to find."""
    folder = os.environ.get("FAULT_MARKS")
    if folder:
        (Path(folder) / name).write_text(str(os.getpid()))


def _text(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
    arguments = params.arguments or {}
    match params.name:
        case "echo":
            return _text(f"echo: {arguments.get('text', '')}")
        case "big":
            chars = int(arguments.get("chars", 0))
            return _text("".join(f"{n:09d}\n" for n in range(chars // 10 + 1))[:chars])
        case "crash":
            sys.stderr.write("about to crash: the disk is on fire\n")
            sys.stderr.flush()
            os._exit(3)
        case "hang" | "garbage":
            if params.name == "garbage":
                print("this is not JSON-RPC")  # the SDK keeps it off the wire
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                _mark("cancelled")
                raise
            return _text("woke up")
        case "read_file":
            return _text(f"the server's read_file of {arguments.get('path')}")
        case "picture":
            image = types.ImageContent(type="image", data=PNG, mime_type="image/png")
            dot = types.TextContent(type="text", text="a dot")
            return types.CallToolResult(content=[dot, image])
        case "fail":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="it went wrong")], is_error=True
            )
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"no tool {params.name}")], is_error=True
    )


async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
    readme = types.Resource(uri="note://readme", name="readme", mime_type="text/plain")
    return types.ListResourcesResult(resources=[readme])


async def read_resource(ctx: Any, params: Any) -> types.ReadResourceResult:
    text = types.TextResourceContents(
        uri=str(params.uri), text="The readme says: ship it.", mime_type="text/plain"
    )
    return types.ReadResourceResult(contents=[text])


async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    argument = types.PromptArgument(name="topic", description="what to review", required=True)
    prompt = types.Prompt(name="review", description="Asks for a review.", arguments=[argument])
    return types.ListPromptsResult(prompts=[prompt])


async def get_prompt(ctx: Any, params: Any) -> types.GetPromptResult:
    topic = (params.arguments or {}).get("topic", "nothing")
    content = types.TextContent(type="text", text=f"Please review {topic} carefully.")
    return types.GetPromptResult(messages=[types.PromptMessage(role="user", content=content)])


def server() -> Server[Any]:
    return Server(
        "fault",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
    )


async def serve_stdio(delay_s: float) -> None:
    from mcp.server.stdio import stdio_server

    _mark("started")
    await asyncio.sleep(delay_s)
    _mark("serving")
    app = server()
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


def serve_http(port: int, header: str) -> None:
    import uvicorn

    name, _, value = header.partition(":")
    app = server().streamable_http_app()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            if headers.get(name.strip().lower()) != value.strip():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"missing header"})
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


def serve_raw_garbage() -> None:
    """Just enough JSON-RPC by hand to be listed, then a call answered with garbage."""
    import json

    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": [{"name": "garbage", "inputSchema": OBJECT}]}
        elif method == "tools/call":
            sys.stdout.write("this is not JSON-RPC\n")
            sys.stdout.flush()
            continue
        else:
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}) + "\n")
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hang-at-start", action="store_true")
    parser.add_argument("--raw-garbage", action="store_true")
    parser.add_argument("--tag", help="ignored: lets a test find this process")
    parser.add_argument("--slow-start", type=float, default=0.0)
    parser.add_argument("--http", type=int)
    parser.add_argument("--require-header", default="X-Token: secret")
    args = parser.parse_args()
    if args.hang_at_start:
        time.sleep(3600)
    if args.raw_garbage:
        serve_raw_garbage()
        return
    if args.http:
        serve_http(args.http, args.require_header)
    else:
        asyncio.run(serve_stdio(args.slow_start))


if __name__ == "__main__":
    main()
