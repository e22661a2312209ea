"""The tools each server listed the last time it started, so that the first request of a
session can offer them while the server is still starting (it never waits for one).

A call to such a tool waits for its server (up to the connect time-out); a tool the server no
longer has fails with a message saying so, and the list is replaced by the server's own as
soon as it is ready. Kept in the user's config dir (`mcp-tools.json`, private), keyed by each
server's configuration (`ServerSpec.fingerprint`), never in the project.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from zizou.paths import write_private

FILE_NAME = "mcp-tools.json"
VERSION = 1
MAX_ENTRIES = 64
MAX_BYTES = 8 * 1024 * 1024


class ToolCache:
    def __init__(self, config_dir: Path) -> None:
        self.path = config_dir / FILE_NAME
        self._lock = threading.Lock()

    def get(self, fingerprint: str) -> tuple[dict[str, Any], ...]:
        entry = self._read().get(fingerprint)
        tools = entry.get("tools") if isinstance(entry, dict) else None
        if not isinstance(tools, list):
            return ()
        return tuple(tool for tool in tools if isinstance(tool, dict))

    def put(self, fingerprint: str, tools: tuple[dict[str, Any], ...]) -> None:
        """Remember `tools` for the server; a failure to write is no failure of the server."""
        with self._lock:
            entries = self._read()
            old = entries.get(fingerprint)
            if isinstance(old, dict) and old.get("tools") == list(tools):
                return
            entries[fingerprint] = {"saved": time.time(), "tools": list(tools)}
            newest = sorted(entries.items(), key=lambda kv: -_saved(kv[1]))[:MAX_ENTRIES]
            data = json.dumps({"version": VERSION, "servers": dict(newest)}).encode()
            if len(data) > MAX_BYTES:
                return
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                write_private(self.path, data, ".mcp-tools-")
            except OSError:
                pass

    def _read(self) -> dict[str, Any]:
        try:
            if self.path.stat().st_size > MAX_BYTES:
                return {}
            document = json.loads(self.path.read_bytes())
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(document, dict) or document.get("version") != VERSION:
            return {}
        servers = document.get("servers")
        return dict(servers) if isinstance(servers, dict) else {}


def _saved(entry: Any) -> float:
    value = entry.get("saved") if isinstance(entry, dict) else None
    return float(value) if isinstance(value, int | float) else 0.0


__all__ = ["FILE_NAME", "ToolCache"]
