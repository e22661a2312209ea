"""Rendering: definitions grouped by file, the longest prefix that fits the budget."""

from __future__ import annotations

from zizou.repomap.render import HEADER, Shown, clean_line, fit, render
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


TRICKY_LINES = [
    "src/app.py:",
    "docs/read me.md",
    "   12│def f(x):",
    "12345│    return {",
    "    7│class Ünïcode(Base):  ",  # trailing spaces
    "    8│x = 1\t",
    "    9│s = '''",
    "   10│// comment!!!",
    "   11│\u3000全角\u2028sep",
    "   13│emoji 🎉🎉",
    "   14│a\rb",  # a carriage return inside
    "   ",  # blank
    "",
    "\t\u00a0",
    "x\ny",
    "...",
    "'s 've 're",
    "1234567890",
]


def test_a_maps_tokens_are_the_sum_of_its_lines_tokens() -> None:
    """The fit counts line by line (render.py); cl100k_base must agree with counting it whole."""
    counter = default_counter()
    lines = [clean_line(text) + "\n" for text in TRICKY_LINES]
    for start in range(len(lines)):
        for end in range(start + 1, len(lines) + 1):
            part = lines[start:end]
            assert counter.count("".join(part)) == sum(map(counter.count, part)), part


def test_every_line_of_a_map_is_one_clean_line() -> None:
    items: list[Shown | str] = [
        Shown(f"a{i}.py", i + 1, text) for i, text in enumerate(TRICKY_LINES)
    ]
    items += [text for text in TRICKY_LINES if text.strip()]
    text = render(items)
    assert all(line.strip() and "\r" not in line for line in text.splitlines())
    fitted = fit(items, 100_000, default_counter())
    assert fitted.text == text and fitted.tokens == default_counter().count(text)
