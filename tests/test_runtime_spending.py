"""How a run's spending is assembled: its caps from the options, priced by litellm's model map,
shared with the decks, asked through the front end's approver when it can ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.guards import GuardSettings
from zizou.agent.spending import OverCap
from zizou.config.options import RunOptions
from zizou.errors import UsageError
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.unattended import HeadlessApprover


class AskingApprover(ScriptedApprover):
    async def over_cap(self, over: OverCap) -> float | None:
        return over.suggested


def test_a_dollar_cap_needs_a_model_litellm_prices(project: Path, zizou_home: Path) -> None:
    options = RunOptions(root=project, max_budget_usd=1.0, debug_log=False)
    with pytest.raises(UsageError) as refused:
        build_session(
            options, ScriptedModel(id="openai/my-local"), HeadlessApprover(), persist=False
        )
    assert "price of openai/my-local" in str(refused.value) and "--max-tokens" in str(refused.value)
    tokens = options.model_copy(update={"max_budget_usd": None, "max_tokens": 5_000})
    runtime = build_session(tokens, ScriptedModel(id="openai/my-local"), HeadlessApprover())
    assert runtime.spending.caps.max_tokens == 5_000
    runtime.close()


def test_the_spending_is_the_runs_and_its_decks(project: Path, zizou_home: Path) -> None:
    options = RunOptions(
        root=project,
        max_budget_usd=0.5,
        guards=GuardSettings(max_model_calls_per_turn=7),
        debug_log=False,
    )
    model = ScriptedModel(id="openai/gpt-4o")
    headless = build_session(options, model, HeadlessApprover(), persist=False)
    spending = headless.spending
    assert (spending.caps.max_usd, spending.caps.max_calls_per_turn) == (0.5, 7)
    assert spending.gate is None  # headless asks nobody: the run stops at the cap
    assert headless.decks is not None and headless.decks.spending is spending
    price = spending.price_of("openai/gpt-4o")
    assert price is not None and price.input_cost_per_token == pytest.approx(2.5e-6)
    approver = AskingApprover()
    app = build_session(options, model, approver, persist=False)
    assert app.spending.gate is approver
