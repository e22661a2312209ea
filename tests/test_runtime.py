"""The runtime's session file is redacted as the debug log is: a key zizou loads after start-up
(the key wizard saving one, a switch to a model with its own key) is masked in both. A resumed
session's commands get ids its conversation has not used."""

from __future__ import annotations

from pathlib import Path

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.permissions import Rules
from zizou.config.keys import save_key
from zizou.config.options import RunOptions, SessionChoice
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session
from zizou.trace import MARKER

WIZARD_KEY = "wizard-typed-key-7f3a9c2e1b"  # no credential shape: only its exact value is known
SWITCHED_KEY = "switched-model-key-4d8e0a6b2c"


class KeyedModel(ScriptedModel):
    """A model opened with a key of its own (as `/model` opens one with the wizard's key)."""

    def secrets(self) -> tuple[str, ...]:
        return (SWITCHED_KEY,)


async def said(runtime: Session, text: str) -> None:
    async for _ in runtime.agent.run_turn(text):
        pass


async def test_a_key_saved_after_start_up_is_masked_in_the_session_file_too(
    project: Path, zizou_home: Path
) -> None:
    model = ScriptedModel([{"text": "noted"}, {"text": f"you gave me {WIZARD_KEY}"}])
    runtime = build_session(RunOptions(root=project), model, ScriptedApprover())
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
    runtime = build_session(RunOptions(root=project), ScriptedModel(), ScriptedApprover())
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


async def test_a_resumed_session_numbers_its_jobs_past_the_ids_its_conversation_names(
    project: Path, zizou_home: Path
) -> None:
    """After `-c`, `read_output(id="c1")` from the earlier run must not read a new command."""
    calls = [
        {"tool_calls": [{"name": "run_bash", "arguments": '{"command": "seq 1 5000"}'}]},
        {"text": "counted"},
    ]
    options = RunOptions(root=project, rules=Rules(yes=True))
    first = build_session(options, ScriptedModel(calls), ScriptedApprover())
    try:
        await said(first, "count")
    finally:
        first.close()
    resumed = options.model_copy(update={"session": SessionChoice(continue_last=True)})
    again = build_session(resumed, ScriptedModel(calls), ScriptedApprover())
    try:
        await said(again, "count again")
        tool = [m for m in again.agent.conversation.messages if m["role"] == "tool"]
        assert 'read_output(id="c1"' in tool[0]["content"]
        assert 'read_output(id="c2"' in tool[1]["content"]
        assert again.jobs.ids() == ["c2"]
    finally:
        again.close()
