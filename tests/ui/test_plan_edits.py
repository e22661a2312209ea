"""The plan's items as the sidebar reads them, and the patch each edit makes (no app)."""

from __future__ import annotations

from zizou.contracts.task_state import TaskState
from zizou.ui.plan_edits import (
    PlanItem,
    add_ops,
    blocked,
    delete_ops,
    new_id,
    plan_items,
    status_ops,
    title_ops,
    toggled,
)

ITEMS = (PlanItem("p1", "Read", "done"), PlanItem("p2", "Fix", "pending"))


def test_the_plan_is_read_item_by_item_and_none_without_one() -> None:
    value = {"plan": [{"id": "a", "title": "  Two\n words ", "status": "blocked", "note": "x"}, 7]}
    assert plan_items(value) == (
        PlanItem("a", "Two words", "blocked", "x"),
        PlanItem(None, "(untitled)", "pending"),
    )
    assert plan_items({"count": 1}) is None and plan_items(None) is None
    assert plan_items({"plan": []}) == ()


def test_space_and_b_toggle_between_two_statuses() -> None:
    assert [toggled(s) for s in ("pending", "in_progress", "blocked", "done")] == [
        "done", "done", "done", "pending",
    ]  # fmt: skip
    assert [blocked(s) for s in ("pending", "done", "blocked")] == ["blocked", "blocked", "pending"]


def test_each_edit_checks_the_item_is_still_the_one_shown() -> None:
    guard = {"op": "test", "path": "/plan/1/id", "value": "p2"}
    assert status_ops(1, ITEMS[1], "done") == [
        guard, {"op": "replace", "path": "/plan/1/status", "value": "done"},
    ]  # fmt: skip
    assert title_ops(1, ITEMS[1], "Fix it")[1]["path"] == "/plan/1/title"
    assert delete_ops(1, ITEMS[1]) == [guard, {"op": "remove", "path": "/plan/1"}]
    assert status_ops(0, PlanItem(None, "x", "pending"), "done")[0]["op"] == "replace"


def test_add_puts_a_pending_item_after_the_selected_one_with_a_new_id() -> None:
    ops = add_ops(ITEMS, 0, "Test")
    assert ops[-1] == {
        "op": "add", "path": "/plan/1", "value": {"id": "p3", "title": "Test", "status": "pending"},
    }  # fmt: skip
    assert add_ops((), None, "First") == [
        {
            "op": "add",
            "path": "/plan/0",
            "value": {"id": "p1", "title": "First", "status": "pending"},
        }
    ]
    assert new_id((PlanItem("p7", "", "done"), PlanItem("x", "", "done"))) == "p8"


def test_the_patches_apply_to_the_built_in_state() -> None:
    task = TaskState()
    assert task.apply_patch(add_ops((), None, "First"), "user").ok
    items = plan_items(task.value)
    assert items is not None
    assert task.apply_patch(add_ops(items, 0, "Second"), "user").ok
    items = plan_items(task.value)
    assert items is not None
    assert task.apply_patch(status_ops(1, items[1], "done"), "user").ok
    assert [i["status"] for i in task.value["plan"]] == ["pending", "done"]
    assert not task.apply_patch(delete_ops(0, items[1]), "user").ok  # not the item shown
