"""`/status`: what this session runs with, in one place: the model and where its key comes from,
the sandbox, the permission mode and the mode, the MCP servers and how full the context is.

A user coming from another agent looks for this before trusting a run; each line is read from
the session as it is now (a `/model` switch or an "always allow" shows at once).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zizou.ui.widgets.sidebar import tokens
from zizou.ui.window_text import share

if TYPE_CHECKING:
    from zizou.ui.session import UiSession

KEY_SOURCES = {  # how `resolve_key` names a source, in words
    "flag": "the --api-key flag",
    "keyring": "the key store (OS keyring)",
    "file": "the key store (keys file)",
}
SANDBOX_WORDS = {
    "on": "on (commands run without network; .git/ and secret files read-only)",
    "missing": "unavailable here: every command asks",
    "off": "off (--sandbox off): commands run unconfined",
}


def key_line(session: UiSession) -> str:
    """Where the model's key comes from, never the key itself."""
    from zizou.config.keys import resolve_key
    from zizou.providers.catalog import needs_key, provider_of

    provider = provider_of(session.model_id)
    given = getattr(session.kernel.model, "api_key", None)
    found = resolve_key(provider, flag=given if isinstance(given, str) else None)
    if found is None:
        return "not needed" if not needs_key(provider) else f"none: /keys {provider} sets one"
    kind, _, variable = found.source.partition(":")
    return f"${variable}" if kind == "env" else KEY_SOURCES.get(kind, found.source)


def mcp_line(session: UiSession) -> str:
    setup = session.kernel.mcp
    statuses = setup.servers.statuses() if setup is not None else []
    if not statuses:
        return "none (`zizou mcp add` adds one)"
    return ", ".join(f"{status.name} ({status.state})" for status in statuses)


def context_line(session: UiSession) -> str:
    used = session.last_request_tokens
    if not used:
        return "no request yet"
    window = session.context_window
    whole = f" of {tokens(window)} ({share(used, window)})" if window else ""
    return f"{tokens(used)} tokens in the last request{whole}"


def status_text(session: UiSession) -> str:
    kernel = session.kernel
    rules = kernel.rules
    rows = [
        ("Model", session.model_id),
        ("Key", key_line(session)),
        ("Sandbox", SANDBOX_WORDS.get(rules.sandbox, rules.sandbox)),
        ("Permission mode", rules.permission_mode + (" (--yes)" if rules.yes else "")),
        ("Mode", kernel.state.mode),
        ("MCP servers", mcp_line(session)),
        ("Context", context_line(session)),
        ("Session", kernel.session_id),
    ]
    width = max(len(name) for name, _ in rows) + 2
    return "\n".join(f"{name + ':':<{width}}{value}" for name, value in rows)


__all__ = ["status_text"]
