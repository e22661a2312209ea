"""The MCP SDK's client session, as a connection uses it: opened with zizou's name, then the
handshake and every page of the server's lists (tools, resources, prompts) as wire JSON.
Imported on the MCP thread only."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

MAX_LISTED = 1000  # tools, resources or prompts of one server


def client_session(read: Any, write: Any, notified: Callable[[Any], Awaitable[None]]) -> Any:
    from mcp import ClientSession, types

    from zizou import __version__

    info = types.Implementation(name="zizou", version=__version__)
    return ClientSession(read, write, client_info=info, message_handler=notified)  # type: ignore[arg-type]


async def handshake(session: Any) -> dict[str, tuple[dict[str, Any], ...]]:
    """Initialise, then list what the server says it has."""
    await session.initialize()
    capabilities = session.server_capabilities
    lists: dict[str, tuple[dict[str, Any], ...]] = {"tools": (), "resources": (), "prompts": ()}
    if capabilities is None or capabilities.tools is not None:
        lists["tools"] = await list_all(session.list_tools, "tools")
    if capabilities is not None and capabilities.resources is not None:
        with contextlib.suppress(Exception):  # a server's resources are a courtesy
            lists["resources"] = await list_all(session.list_resources, "resources")
    if capabilities is not None and capabilities.prompts is not None:
        with contextlib.suppress(Exception):
            lists["prompts"] = await list_all(session.list_prompts, "prompts")
    return lists


async def list_all(
    list_page: Callable[..., Awaitable[Any]], key: str
) -> tuple[dict[str, Any], ...]:
    """Every page of a list (tools, resources, prompts), as wire JSON, up to MAX_LISTED."""
    from mcp import types

    items: list[dict[str, Any]] = []
    cursor: str | None = None
    while len(items) < MAX_LISTED:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await list_page(params=params)
        data = page.model_dump(mode="json", by_alias=True, exclude_none=True)
        items += [item for item in data.get(key, []) if isinstance(item, dict)]
        cursor = data.get("nextCursor")
        if not cursor:
            break
    return tuple(items[:MAX_LISTED])


__all__ = ["MAX_LISTED", "client_session", "handshake", "list_all"]
