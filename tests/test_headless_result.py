"""The result a json run ends with when its turn breaks in a way the loop does not handle: still
one object, with the session, the kind and what broke."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions
from zizou.contracts.protocols import Model, ModelEvent, ModelRequest, TextPiece
from zizou.headless import HeadlessRun
from zizou.session.assembly import build_session


class BrokenModel(Model):
    id = "openai/broken"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if request.messages:
            raise RuntimeError("boom")
        yield TextPiece("never")


async def test_a_bug_in_the_turn_ends_it_with_an_error_record_not_a_traceback(
    tmp_path: Path,
) -> None:
    runtime = build_session(RunOptions(root=tmp_path), BrokenModel(), ScriptedApprover())
    out, err = io.StringIO(), io.StringIO()
    try:
        code = await HeadlessRun(runtime, "json", out=out, err=err).run("hi")
    finally:
        runtime.close()
    assert code == 1
    [line] = out.getvalue().splitlines()
    result = json.loads(line)
    assert result["subtype"] == "error" and result["session_id"] == runtime.session_id
    assert result["error"] == {"kind": "runtime", "message": "zizou failed: RuntimeError: boom"}
    assert "Traceback" not in err.getvalue()
    log = (tmp_path / "zizou-debug.log").read_text(encoding="utf-8")
    assert "ERROR: zizou failed: RuntimeError: boom" in log
    assert "Traceback (most recent call last)" in log and 'raise RuntimeError("boom")' in log
    session = (tmp_path / ".zizou" / "sessions" / f"{runtime.session_id}.jsonl").read_text()
    [finished] = [json.loads(x) for x in session.splitlines() if '"finished"' in x]
    assert finished["reason"] == "error"
