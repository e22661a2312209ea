"""The task state in the session file: each change kept as its patch (the whole value every 50
patches and after a reset), replayed on `-c`; a replay that no longer fits the schema goes on
from the last value that did, and says so."""

from __future__ import annotations

import json
from pathlib import Path

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions, SessionChoice
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session


def schema(root: Path, maximum: int | None = None) -> None:
    count: dict[str, object] = {"type": "integer", "default": 0}
    if maximum is not None:
        count["maximum"] = maximum
    folder = root / ".zizou"
    folder.mkdir(exist_ok=True)
    body = {"type": "object", "properties": {"count": count, "name": {"type": "string"}}}
    (folder / "state.schema.json").write_text(json.dumps(body))


def runtime(root: Path, resume: bool = False) -> Session:
    options = RunOptions(root=root, session=SessionChoice(continue_last=resume))
    return build_session(options, ScriptedModel(), ScriptedApprover())


def test_changes_are_kept_as_patches_and_replayed(tmp_path: Path, zizou_home: Path) -> None:
    schema(tmp_path)
    first = runtime(tmp_path)
    first.state.conversation.add_user("count")
    assert first.state.update_task(merge={"name": "a"}).ok
    for n in range(1, 4):
        assert first.state.update_task(patch=[{"op": "replace", "path": "/count", "value": n}]).ok
    first.close()
    assert first.writer is not None
    kinds = [json.loads(line)["kind"] for line in first.writer.path.read_text().splitlines()]
    assert kinds.count("state") == 4
    again = runtime(tmp_path, resume=True)
    try:
        assert again.state.task is not None
        assert dict(again.state.task.value) == {"count": 3, "name": "a"}
        assert again.warnings == []
    finally:
        again.close()


def test_a_replay_that_no_longer_fits_goes_on_from_the_last_valid_state(
    tmp_path: Path, zizou_home: Path
) -> None:
    schema(tmp_path)
    first = runtime(tmp_path)
    first.state.conversation.add_user("count")
    first.state.update_task(merge={"name": "kept"})
    first.state.reset_task()  # kept whole: a snapshot
    first.state.update_task(merge={"name": "b"})
    first.state.update_task(patch=[{"op": "replace", "path": "/count", "value": 5}])
    first.state.update_task(merge={"name": "c"})
    first.close()
    schema(tmp_path, maximum=2)  # the project's schema changed since
    again = runtime(tmp_path, resume=True)
    try:
        assert again.state.task is not None
        assert dict(again.state.task.value) == {"count": 0, "name": ""}  # the snapshot (reset)
        [warning] = again.warnings
        assert "no longer apply" in warning and "/count" in warning
    finally:
        again.close()
