"""update_state and get_instructions as the model calls them."""

from __future__ import annotations

from pathlib import Path

from zizou.contracts.instructions import InstructionSet
from zizou.contracts.state import InstructionsLoaded, SessionState, StateChanged
from zizou.contracts.task_state import TaskState
from zizou.tools.base import ToolContext
from zizou.tools.get_instructions import TOOL as GET
from zizou.tools.get_instructions import GetInstructionsArgs
from zizou.tools.update_state import TOOL as UPDATE
from zizou.tools.update_state import UpdateStateArgs


def context(root: Path, with_task: bool = True) -> tuple[ToolContext, SessionState]:
    state = SessionState()
    if with_task:
        state.task = TaskState()
    else:
        state.task_problem = ".zizou/state.schema.json is not valid JSON"
    return ToolContext(root=root, state=state, instructions=InstructionSet.load(root)), state


async def test_a_patch_is_applied_and_told_to_the_subscribers(tmp_path: Path) -> None:
    ctx, state = context(tmp_path)
    told: list[object] = []
    state.subscribe(told.append)
    args = UpdateStateArgs(patch=[{"op": "replace", "path": "/goal", "value": "ship"}])
    result = await UPDATE.run(args, ctx)
    assert result.ok, result.output
    assert state.task is not None and state.task.value["goal"] == "ship"
    [event] = told
    assert isinstance(event, StateChanged) and event.changed_paths == ("/goal",)


async def test_exactly_one_of_patch_or_merge(tmp_path: Path) -> None:
    ctx, _ = context(tmp_path)
    both = UpdateStateArgs(patch=[], merge={"goal": "x"})
    assert (await UPDATE.run(both, ctx)).output.startswith("give exactly one of patch")
    assert not (await UPDATE.run(UpdateStateArgs(), ctx)).ok


async def test_without_a_task_state_the_model_is_told_why(tmp_path: Path) -> None:
    ctx, _ = context(tmp_path, with_task=False)
    result = await UPDATE.run(UpdateStateArgs(merge={"goal": "x"}), ctx)
    assert not result.ok and "is not valid JSON" in result.output


async def test_a_sticky_instruction_is_kept_once_read(tmp_path: Path) -> None:
    folder = tmp_path / ".zizou" / "instructions"
    folder.mkdir(parents=True)
    (folder / "style.md").write_text("---\ndescription: House style.\nsticky: true\n---\nTabs.\n")
    ctx, state = context(tmp_path)
    told: list[object] = []
    state.subscribe(told.append)
    result = await GET.run(GetInstructionsArgs(name="style"), ctx)
    assert result.ok and "Tabs." in result.output
    assert state.sticky == ("style",) and told == [InstructionsLoaded(("style",))]
    listing = await GET.run(GetInstructionsArgs(name="?"), ctx)
    assert listing.ok and "style" in listing.output and "git-commit" in listing.output
    missing = await GET.run(GetInstructionsArgs(name="stlye"), ctx)
    assert not missing.ok and "style" in missing.output
