"""The runtime's session file is redacted as the debug log is: a key zizou loads after start-up
(the key wizard saving one, a switch to a model with its own key) is masked in both."""

from __future__ import annotations

from pathlib import Path

from zizou.config.keys import save_key
from zizou.config.options import RunOptions
from zizou.core.approvers import ScriptedApprover
from zizou.providers.fake import ScriptedModel
from zizou.runtime import Runtime, build_runtime
from zizou.trace import MARKER

WIZARD_KEY = "wizard-typed-key-7f3a9c2e1b"  # no credential shape: only its exact value is known
SWITCHED_KEY = "switched-model-key-4d8e0a6b2c"


class KeyedModel(ScriptedModel):
    """A model opened with a key of its own (as `/model` opens one with the wizard's key)."""

    def secrets(self) -> tuple[str, ...]:
        return (SWITCHED_KEY,)


async def said(runtime: Runtime, text: str) -> None:
    async for _ in runtime.agent.run_turn(text):
        pass


async def test_a_key_saved_after_start_up_is_masked_in_the_session_file_too(
    project: Path, zizou_home: Path
) -> None:
    model = ScriptedModel([{"text": "noted"}, {"text": f"you gave me {WIZARD_KEY}"}])
    runtime = build_runtime(RunOptions(root=project), model, ScriptedApprover())
    try:
        await said(runtime, "hello")
        save_key("openai", WIZARD_KEY, "file")  # what the key wizard does mid-session
        await said(runtime, f"my key is {WIZARD_KEY}")
    finally:
        runtime.close()
    session = (project / ".zizou" / "sessions" / f"{runtime.session_id}.jsonl").read_text()
    debug_log = (project / "zizou-debug.log").read_text()
    assert WIZARD_KEY not in session and WIZARD_KEY not in debug_log
    assert session.count(MARKER) >= 2  # the user's message and the model's reply


async def test_the_key_of_a_model_switched_to_is_masked_in_the_session_file(
    project: Path, zizou_home: Path
) -> None:
    runtime = build_runtime(RunOptions(root=project), ScriptedModel(), ScriptedApprover())
    switched = KeyedModel([{"text": f"my own key is {SWITCHED_KEY}"}], id="openai/other")
    runtime.agent.model = switched  # what /model does
    try:
        await said(runtime, "which key do you use?")
    finally:
        runtime.close()
    session = (project / ".zizou" / "sessions" / f"{runtime.session_id}.jsonl").read_text()
    assert SWITCHED_KEY not in session and MARKER in session
    compiled = (project / ".zizou" / "compiled" / "prompt.md").read_text()
    assert SWITCHED_KEY not in compiled
