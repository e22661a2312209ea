"""An MCP server's tool as one of zizou's: `mcp__SERVER__TOOL`, under the same contract.

Its parameters are the server's input schema, cleaned for the provider (`schema.py`); each call
is parsed and checked against the server's own schema once, then decided on as a call that
reaches outside the project (access kind "mcp"): it asks unless a rule approves it
(`--allow mcp__git__git_status`, `--allow 'mcp__git__*'`, a saved rule, `--yes`). A server's
`readOnlyHint` is shown in the approval, never relied on. The result is capped like our own
tools' output, its images kept for models that take them, and `isError` is a failed result.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from zizou.mcp.schema import for_provider, summary_of, tool_name
from zizou.tools.base import SUMMARY_MAX_CHARS, Access, ArgsProblem, ToolContext, ToolResult
from zizou.tools.schema_tool import SchemaArgs, SchemaTool, schema_problems, short_input

if TYPE_CHECKING:
    from zizou.tools.base import ToolArgs


class ServerCaller(Protocol):
    """Sends a tool call to a server (the manager, across to its thread)."""

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult: ...


class McpTool(SchemaTool):
    """A tool of an MCP server (subclassed per tool by `mcp_tool`)."""

    access_kind = "mcp"
    server: ClassVar[str]
    tool: ClassVar[str]  # its name on the server
    server_schema: ClassVar[dict[str, Any]]  # its input schema as the server gave it
    read_only_hint: ClassVar[bool | None] = None

    def __init__(self, caller: ServerCaller) -> None:
        self.caller = caller

    def parse_args(self, data: dict[str, Any]) -> ToolArgs:
        problems = schema_problems(self.server_schema, data)
        if problems:
            raise ArgsProblem(problems)
        return SchemaArgs.model_validate(data)

    def access(self, args: SchemaArgs, ctx: ToolContext) -> Access:
        return Access(kind="mcp")

    def label(self, args: SchemaArgs) -> str:
        arguments = args.model_dump(mode="json")
        return short_input(arguments) if arguments else ""

    def preview(self, args: SchemaArgs, access: Access, ctx: ToolContext) -> str | None:
        return json.dumps(
            {
                "server": self.server,
                "tool": self.tool,
                "read_only_hint": self.read_only_hint,
                "arguments": args.model_dump(mode="json"),
            },
            indent=2,
            ensure_ascii=False,
        )[:8000]

    async def execute(self, args: SchemaArgs, access: Access, ctx: ToolContext) -> ToolResult:
        return await self.caller.call_tool(self.server, self.tool, args.model_dump(mode="json"))


def mcp_tool(server: str, info: dict[str, Any], caller: ServerCaller, taken: set[str]) -> McpTool:
    """The tool `info` (as `tools/list` gave it) of `server`, named uniquely among `taken`."""
    original = str(info["name"])
    name = tool_name(server, original, taken)
    description = str(info.get("description") or info.get("title") or original)
    annotations = info.get("annotations")
    hint = annotations.get("readOnlyHint") if isinstance(annotations, dict) else None
    schema = info.get("inputSchema") if isinstance(info.get("inputSchema"), dict) else {}
    cls = type(
        f"McpTool_{name}",
        (McpTool,),
        {
            "__doc__": f"{description}\n\n(The tool {original} of the MCP server {server}.)",
            "name": name,
            "summary": summary_of(f"[{server}] {description}", SUMMARY_MAX_CHARS),
            "parameters": for_provider(schema),
            "server": server,
            "tool": original,
            "server_schema": schema,
            "read_only_hint": hint if isinstance(hint, bool) else None,
        },
    )
    made: McpTool = cls(caller)
    return made


def schema_problem(info: dict[str, Any]) -> str | None:
    """Why a listed tool cannot be offered (a name or an input schema that is not valid), or
    None."""
    from jsonschema import Draft202012Validator, validators
    from jsonschema.exceptions import SchemaError

    name = info.get("name")
    if not isinstance(name, str) or not name:
        return "a tool without a name"
    schema = info.get("inputSchema")
    if not isinstance(schema, dict):
        return f"{name}: its input schema is not a JSON object"
    if schema.get("type", "object") != "object":
        return f"{name}: its input schema is not an object schema (type {schema.get('type')!r})"
    try:
        validators.validator_for(schema, default=Draft202012Validator).check_schema(schema)
    except SchemaError as err:
        return f"{name}: its input schema is not valid JSON Schema ({err.message})"
    return None


__all__ = ["McpTool", "ServerCaller", "mcp_tool", "schema_problem"]
