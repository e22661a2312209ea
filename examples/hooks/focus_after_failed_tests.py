"""Focus after failed tests: when a test run fails, the next step fixes it instead of wandering.

After a `run_bash` call that ran tests (pytest, npm test, go test, cargo test...) and failed,
the next step offers only the tools that read, search and edit files, and `run_bash` to run the
tests again; the model is reminded of the end of the failure's output. Failed runs in a row are
counted, and from the third one on the model is told to stop and ask the user: by then another
guess costs more than a question. A passing run resets the count and leaves every tool offered.

Copy it to `.zizou/hooks/` (a project hook, trusted once) or to the user's hooks directory.
"""

from __future__ import annotations

import re

from zizou.hooks import LastTool, Prompt, PromptContext, StepModifier, def_state, effect

TEST_COMMAND = re.compile(
    r"\b(pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|rspec|phpunit|ctest)\b"
    r"|\b(npm|pnpm|yarn|bun)\s+(run\s+)?test\b"
    r"|\b(go|cargo|dotnet|mix|swift|deno|mvn|gradle|gradlew|make)\s+test\b"
)
FOCUS_ACCESS = ("read", "write")  # reading, searching and editing; not deleting or opening
ASK_AFTER = 3  # failed runs in a row before the model should ask the user
TAIL_LINES = 15

failed_runs, set_failed_runs = def_state("failed_test_runs", 0)


def last_test_run(ctx: PromptContext) -> LastTool | None:
    """The test run the previous step ended with, if it ended with one."""
    last = ctx.last_tool
    if last is None or last.name != "run_bash" or last.step != ctx.step_number - 1:
        return None
    return last if TEST_COMMAND.search(str(last.arguments.get("command", ""))) else None


@effect(deps=lambda ctx: [ctx.turn_number, ctx.last_tool])
def count_failed_runs(ctx: PromptContext, step: StepModifier) -> None:
    """Once per finished tool call: a test run that failed adds one, one that passed resets."""
    run = last_test_run(ctx)
    if run is not None:
        set_failed_runs((lambda n: n + 1) if not run.ok else 0)


@effect()
def focus_tools(ctx: PromptContext, step: StepModifier) -> None:
    """Right after a failed test run, offer only what fixing it takes."""
    run = last_test_run(ctx)
    if run is None or run.ok:
        return
    keep = [tool.name for tool in ctx.tools if tool.access in FOCUS_ACCESS]
    if ctx.tools.has("run_bash"):
        keep.append("run_bash")
    step("tools", keep, why="the tests just failed: read the failure and fix it first")


def render(p: Prompt) -> None:
    run = last_test_run(p.ctx)
    if run is None or run.ok:
        return
    # State sets apply once the step is planned: this step still reads the count from before
    # the run that just failed.
    streak = failed_runs() + 1
    # The runtime keeps the end of the output (its last 2,000 characters), where the test
    # runner's summary is.
    tail = "\n".join(run.output.rstrip().splitlines()[-TAIL_LINES:])
    text = (
        f"The tests just failed (`{run.arguments.get('command', '')}`). The end of the output:\n"
        f"{tail}\n"
        "Find the cause in this output and fix it before doing anything else."
    )
    if streak >= ASK_AFTER:
        text += (
            f"\nThat is {streak} failed test runs in a row: stop guessing, tell the user what "
            "you tried and what fails, and ask how to proceed."
        )
    p.remind(text)
