"""Reading through the editor, through the real `zizou acp`: when the editor offers
`fs/read_text_file`, read_file shows an open file's unsaved buffer (and says it differs from
the disk), a file that is not open as it is on disk; a secret file is refused by zizou's path
layer without the editor being asked; an editor without the capability is never asked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import ClientCapabilities, FileSystemCapabilities
from acp_harness import RecordingClient, zizou_acp
from loopback import LoopbackServer

READS = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True))


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def told(srv: LoopbackServer) -> list[str]:
    return [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]


async def run_reads(
    client: RecordingClient, project: Path, home: Path, capabilities: ClientCapabilities | None
) -> list[str]:
    script = [
        call("read_file", path="notes.txt"),
        call("read_file", path="other.txt"),
        call("read_file", path=".env"),
        call("edit_file", path="notes.txt", old_string="saved line", new_string="edited line"),
        {"text": "read"},
    ]
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, home, project) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=capabilities)
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("read")])
        return told(srv)


async def test_read_file_shows_the_editors_unsaved_buffer(project: Path, zizou_home: Path) -> None:
    (project / "notes.txt").write_text("saved line\n")
    (project / "other.txt").write_text("on disk only\n")
    (project / ".env").write_text("API_TOKEN=hunter2\n")
    notes = str(project / "notes.txt")
    client = RecordingClient(buffers={notes: "saved line\nunsaved line\n"})
    results = await run_reads(client, project, zizou_home, READS)
    assert "unsaved line" in results[0]
    assert "notes.txt has unsaved changes in the editor" in results[0]
    assert "on disk only" in results[1] and "unsaved changes" not in results[1]
    assert "hunter2" not in results[2]
    assert client.read == [notes, str(project / "other.txt")]  # never the secret file
    # The edit goes to the file on disk, which it was checked against.
    assert (project / "notes.txt").read_text() == "edited line\n"


async def test_an_editor_without_the_capability_is_never_asked(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("saved line\n")
    (project / "other.txt").write_text("on disk only\n")
    notes = str(project / "notes.txt")
    client = RecordingClient(buffers={notes: "unsaved line\n"})
    results = await run_reads(client, project, zizou_home, None)
    assert "saved line" in results[0] and "unsaved" not in results[0]
    assert client.read == []
