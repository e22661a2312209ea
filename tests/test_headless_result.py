"""The result a json run ends with when its turn breaks in a way the loop does not handle: still
one object, with the session, the kind and what broke."""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from pathlib import Path

from zizou.core.approvers import ScriptedApprover
from zizou.core.permissions import Rules
from zizou.core.protocols import ModelEvent, ModelRequest, TextPiece
from zizou.headless import HeadlessRun
from zizou.runtime import build_runtime


class BrokenModel:
    id = "openai/broken"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if request.messages:
            raise RuntimeError("boom")
        yield TextPiece("never")


async def test_a_bug_in_the_turn_still_ends_with_one_result(tmp_path: Path) -> None:
    runtime = build_runtime(tmp_path, BrokenModel(), ScriptedApprover(), Rules(), debug_log=False)
    out, err = io.StringIO(), io.StringIO()
    try:
        code = await HeadlessRun(runtime, "json", out=out, err=err).run("hi")
    finally:
        runtime.close()
    assert code == 1
    [line] = out.getvalue().splitlines()
    result = json.loads(line)
    assert result["subtype"] == "error" and result["session_id"] == runtime.session_id
    assert result["error"] == {"kind": "runtime", "message": "boom"}
    assert "Traceback" in err.getvalue() and "RuntimeError: boom" in err.getvalue()
