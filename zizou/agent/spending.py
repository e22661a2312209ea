"""What a run may spend and what it has spent, checked before every model call it makes.

One `Spending` is shared by everything in a run that calls a model: the main agent's steps, its
summaries, and every nested deck's calls (each goes through `Metered`). Before a call it checks,
from the usage so far plus the request's estimated size:

- the model calls of this turn against `max_calls_per_turn` (a runaway guard: `core/guards.py`);
- the tokens spent (input and output) against `max_tokens`, and the dollars against `max_usd`
  (priced by litellm's model map, the reply's own cost once known). A call goes out only when
  the cap leaves room for its input and at least `MIN_REPLY_TOKENS` of reply, and its reply is
  limited to that room (`ModelRequest.max_output_tokens`), so the run does not cross the cap.

A call the caps refuse goes to the gate (the app asks the person whether to raise the cap); with
no gate, or a "no", the turn stops with reason "budget" and a message that names the cap, the
spend and how to raise it. Past 80% of a cap, one `BudgetWarning` waits for the main loop.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from zizou.agent.guards import SETTINGS_HINT, StopTurn
from zizou.contracts.compaction import estimate_tokens
from zizou.contracts.events import BudgetWarning, Usage
from zizou.contracts.protocols import Model, ModelEvent, ModelReply, ModelRequest

MIN_REPLY_TOKENS = 256  # a call must leave room for at least this much reply
OUTPUT_CEILING = 4_096  # a reply limit is sent only below this, or below the model's own maximum
WARN_AT = 0.8  # of a cap: the warning
Unit = Literal["usd", "tokens"]


class Price(Protocol):
    """What the model map says of a model's price (`providers.catalog.ModelInfo` is one)."""

    @property
    def input_cost_per_token(self) -> float | None: ...

    @property
    def output_cost_per_token(self) -> float | None: ...

    @property
    def max_output_tokens(self) -> int | None: ...


PriceOf = Callable[[str], Price | None]


@dataclass(frozen=True)
class SpendCaps:
    max_usd: float | None = None
    max_tokens: int | None = None
    max_calls_per_turn: int = 100


@dataclass(frozen=True)
class OverCap:
    """A call a cap would not let through: the cap, what was spent, and what the next request
    costs before its reply (in the cap's unit)."""

    unit: Unit
    cap: float
    spent: float
    next_cost: float
    model: str
    request_tokens: int

    @property
    def suggested(self) -> float:
        """A cap to offer instead: twice this one, and room for a few more calls at least."""
        wanted = max(self.cap * 2, self.spent + 4 * self.next_cost)
        if self.unit == "tokens":
            return float(math.ceil(wanted / 1_000) * 1_000)
        return math.ceil(wanted * 100) / 100

    def message(self) -> str:
        cap, spent, nxt = (amount(self.unit, v) for v in (self.cap, self.spent, self.next_cost))
        flag, key = ("--max-budget-usd", "max_budget_usd")
        if self.unit == "tokens":
            flag, key = ("--max-tokens", "max_tokens")
        return (
            f"stopped before a model call that would pass the spending cap of {cap}: {spent} "
            f"spent so far, and the next request (~{self.request_tokens:,} tokens to "
            f"{self.model}) costs about {nxt} before its reply. Raise the cap with {flag} N "
            f"(or {key} in config.toml) and continue the session with `zizou -c`."
        )


def amount(unit: Unit, value: float) -> str:
    """$0.0061, $1.25 or 12,345 tokens."""
    if unit == "tokens":
        return f"{round(value):,} tokens"
    return f"${value:.2f}" if value >= 1 else f"${value:.4f}"


@runtime_checkable
class CapGate(Protocol):
    """Asked when a call would pass a cap: a new, higher cap to go on with, or None to stop."""

    async def over_cap(self, over: OverCap) -> float | None: ...


class OverBudget(StopTurn):
    def __init__(self, message: str) -> None:
        super().__init__("budget", message)


def request_tokens(request: ModelRequest) -> int:
    """The request's estimated input tokens (its system prompt, messages and tools)."""
    return estimate_tokens([request.system, request.messages, request.tools])


class Spending:
    """The run's spend (see the module docstring). It is a turn recorder of the main agent:
    each turn of the main agent starts a new count of model calls."""

    def __init__(
        self, caps: SpendCaps, price_of: PriceOf | None = None, gate: CapGate | None = None
    ) -> None:
        self.caps = caps
        self.price_of: PriceOf = price_of or (lambda model_id: None)
        self.gate = gate
        self.usage = Usage()
        self.spent_usd = 0.0  # the replies' cost, priced from the model map when they had none
        self.turn_calls = 0
        self._warned: set[Unit] = set()
        self._warning: BudgetWarning | None = None

    # --- the main agent's turns --------------------------------------------------------------

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.turn_calls = 0

    def record_request(self, step: int, request: ModelRequest) -> None:
        pass

    def emit(self, event: Any) -> None:
        pass

    # --- what is spent --------------------------------------------------------------------------

    @property
    def tokens(self) -> int:
        return self.usage.input_tokens + self.usage.output_tokens

    @property
    def calls_spent(self) -> bool:
        return self.turn_calls >= self.caps.max_calls_per_turn

    def share(self) -> float | None:
        """The larger share of a cap used so far; None without a cap."""
        shares = []
        if self.caps.max_usd:
            shares.append(self.spent_usd / self.caps.max_usd)
        if self.caps.max_tokens:
            shares.append(self.tokens / self.caps.max_tokens)
        return max(shares) if shares else None

    def against_caps(self) -> tuple[str, ...]:
        """The spend against each cap there is: "$0.4200 of $2.00", "12,000 tokens of ..."."""
        used: list[str] = []
        if self.caps.max_usd:
            used.append(f"{amount('usd', self.spent_usd)} of {amount('usd', self.caps.max_usd)}")
        if self.caps.max_tokens:
            caps = amount("tokens", self.caps.max_tokens)
            used.append(f"{amount('tokens', self.tokens)} of {caps}")
        return tuple(used)

    def carry(self, other: Spending) -> None:
        """Go on from `other`'s spend and caps (the app's run goes on in a new conversation)."""
        self.caps, self.usage, self.spent_usd = other.caps, other.usage, other.spent_usd
        self._warned = set(other._warned)

    def record(self, model_id: str, usage: Usage) -> None:
        """A reply's usage: added to the run's, and the warning readied past WARN_AT."""
        self.usage += usage
        cost = usage.cost_usd
        price = self.price_of(model_id) if cost is None else None
        if cost is None and price is not None:
            cost = _priced(price, usage.input_tokens, usage.output_tokens)
        self.spent_usd += cost or 0.0
        self._ready_warning()

    def take_warning(self) -> BudgetWarning | None:
        warning, self._warning = self._warning, None
        return warning

    # --- before a call --------------------------------------------------------------------------

    async def admit(self, model_id: str, request: ModelRequest) -> ModelRequest:
        """`request` as it may go out (its reply limited to the room left), once the caps let
        it; raises StopTurn (the per-turn call cap) or OverBudget."""
        if self.calls_spent:
            raise StopTurn(
                "loop_guard",
                f"the turn made {self.turn_calls} model calls, the main agent's and its decks' "
                "together, so it was stopped before another; send a message to go on, or raise "
                f"max_model_calls_per_turn in {SETTINGS_HINT}.",
            )
        size = request_tokens(request)
        price = self.price_of(model_id)
        while isinstance(room := self._room(model_id, size, price), OverCap):
            raised = await self.gate.over_cap(room) if self.gate is not None else None
            if raised is None or raised <= room.cap:
                raise OverBudget(room.message())
            self._raise(room.unit, raised)
        self.turn_calls += 1
        # A limit the model takes: below its own maximum, or below a size every model allows.
        ceiling = (price.max_output_tokens if price is not None else None) or OUTPUT_CEILING
        if room is not None and room < ceiling:
            return dataclasses.replace(request, max_output_tokens=room)
        return request

    def _room(self, model_id: str, size: int, price: Price | None) -> int | OverCap | None:
        """The reply tokens the caps leave after a request of `size` tokens (None: no cap),
        or the cap it would pass."""
        rooms: list[int] = []
        if (cap := self.caps.max_tokens) is not None:
            left = cap - self.tokens - size
            if left < MIN_REPLY_TOKENS:
                return OverCap("tokens", cap, self.tokens, size, model_id, size)
            rooms.append(left)
        if (budget := self.caps.max_usd) is not None:
            costs = costs_of(price)
            if costs is None:
                raise OverBudget(
                    f"litellm does not know the price of {model_id}, so the spending cap of "
                    f"{amount('usd', budget)} cannot be kept; cap its tokens with --max-tokens N "
                    "(max_tokens in config.toml) instead."
                )
            input_cost, output_cost = costs
            left_usd = budget - self.spent_usd - size * input_cost
            room = math.floor(left_usd / output_cost) if output_cost > 0 else None
            if left_usd < 0 or (room is not None and room < MIN_REPLY_TOKENS):
                return OverCap("usd", budget, self.spent_usd, size * input_cost, model_id, size)
            if room is not None:
                rooms.append(room)
        return min(rooms) if rooms else None

    def _raise(self, unit: Unit, cap: float) -> None:
        if unit == "usd":
            self.caps = dataclasses.replace(self.caps, max_usd=cap)
        else:
            self.caps = dataclasses.replace(self.caps, max_tokens=round(cap))
        self._warned.discard(unit)
        self._ready_warning()

    def _ready_warning(self) -> None:
        checks: tuple[tuple[Unit, float | None, float], ...] = (
            ("usd", self.caps.max_usd, self.spent_usd),
            ("tokens", self.caps.max_tokens, float(self.tokens)),
        )
        for unit, cap, spent in checks:
            if not cap or unit in self._warned or spent < WARN_AT * cap:
                continue
            self._warned.add(unit)
            self._warning = BudgetWarning(
                f"{spent / cap:.0%} of the spending cap is used: {amount(unit, spent)} of "
                f"{amount(unit, cap)}",
                self.spent_usd,
                self.caps.max_usd,
                self.tokens,
                self.caps.max_tokens,
            )


def costs_of(price: Price | None) -> tuple[float, float] | None:
    """(input, output) dollars per token; None when the price is not known."""
    if price is None:
        return None
    if price.input_cost_per_token is None or price.output_cost_per_token is None:
        return None
    return price.input_cost_per_token, price.output_cost_per_token


def _priced(price: Price, input_tokens: int, output_tokens: int) -> float | None:
    costs = costs_of(price)
    return None if costs is None else input_tokens * costs[0] + output_tokens * costs[1]


class Metered:
    """`inner`, each call admitted by the run's spending first and its usage counted after."""

    def __init__(self, inner: Model, spending: Spending) -> None:
        self.inner = inner
        self.id = inner.id
        self.spending = spending

    @property
    def context_window(self) -> int | None:
        window = getattr(self.inner, "context_window", None)
        return window if isinstance(window, int) else None

    @property
    def takes_images(self) -> bool:
        """Whether the inner model reads images (see zizou.contracts.images)."""
        return bool(getattr(self.inner, "takes_images", False))

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        request = await self.spending.admit(self.inner.id, request)
        async for item in self.inner.stream(request):
            if isinstance(item, ModelReply):
                self.spending.record(self.inner.id, item.usage)
            yield item

    def call_parameters(self) -> dict[str, Any]:
        return self.inner.call_parameters()

    def secrets(self) -> tuple[str, ...]:
        return self.inner.secrets()


__all__ = [
    "MIN_REPLY_TOKENS",
    "CapGate",
    "Metered",
    "OverBudget",
    "OverCap",
    "Price",
    "SpendCaps",
    "Spending",
    "amount",
    "costs_of",
    "request_tokens",
]
