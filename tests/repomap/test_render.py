"""Rendering: definitions grouped by file, the longest prefix that fits the budget."""

from __future__ import annotations

from zizou.repomap.render import HEADER, Shown, fit, render
from zizou.repomap.tokens import EstimateCounter, default_counter


def _items(n: int) -> list[Shown | str]:
    return [
        Shown(f"pkg/mod{i % 5}.py", 10 + i, f"def function_{i}(arg: int) -> str:") for i in range(n)
    ]


def test_definitions_group_by_file_in_source_order() -> None:
    text = render(
        [
            Shown("b.py", 9, "def late():"),
            Shown("a.py", 3, "x = 1"),
            Shown("b.py", 2, "def early():"),
            "c.md",
        ]
    )
    assert text == (
        HEADER + "b.py:\n    2│def early():\n    9│def late():\na.py:\n    3│x = 1\nc.md\n"
    )


def test_a_file_with_definitions_is_not_listed_again_by_name() -> None:
    assert render([Shown("a.py", 1, "def f():"), "a.py", "b.py"]).count("a.py") == 1


def test_the_fit_is_the_longest_prefix_within_budget() -> None:
    counter = default_counter()
    items = _items(200)
    for budget in (40, 100, 333, 1000):
        fitted = fit(items, budget, counter)
        assert fitted.tokens == counter.count(fitted.text) <= budget
        longer = render(items[: fitted.definitions + 1])
        assert counter.count(longer) > budget


def test_everything_fits_a_big_budget() -> None:
    fitted = fit(_items(12), 100_000, EstimateCounter())
    assert fitted.definitions == 12 and fitted.files == 5


def test_nothing_fits_no_budget() -> None:
    assert fit(_items(3), 0, EstimateCounter()).text == ""
    assert fit([], 500, EstimateCounter()).text == ""
    assert fit(_items(3), 5, EstimateCounter()).text == ""  # not even the header
