"""A focused file brings the files that use it and its tests into the map, above unrelated code,
while what it uses still leads; with neither, the map is the one it was before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import scaled

from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import MapRequest
from zizou.repomap.tokens import EstimateCounter

SHOP = {
    "shop/money.py": """\
class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents


def add_money(first: Money, second: Money) -> Money:
    return Money(first.cents + second.cents)
""",
    "shop/pricing.py": """\
from shop.money import Money, add_money


class PriceTable:
    def lookup(self, sku: str) -> Money:
        return Money(100)


def price_of(table: PriceTable, sku: str) -> Money:
    return add_money(table.lookup(sku), Money(0))
""",
    "shop/checkout.py": """\
from shop.pricing import PriceTable, price_of


class Basket:
    def __init__(self, skus: list[str]) -> None:
        self.skus = skus


def checkout_total(basket: Basket, table: PriceTable) -> int:
    return sum(price_of(table, sku).cents for sku in basket.skus)
""",
    "shop/shipping.py": """\
class Parcel:
    def __init__(self, grams: int) -> None:
        self.grams = grams


def shipping_cost(parcel: Parcel, zone: str) -> int:
    return parcel.grams // 10
""",
    "shop/dispatch.py": """\
from shop.shipping import Parcel, shipping_cost


def dispatch_parcel(grams: int) -> int:
    return shipping_cost(Parcel(grams), "eu")
""",
    "tests/test_pricing.py": """\
def test_an_unknown_sku_costs_a_dollar() -> None:
    assert True
""",
    "tests/test_receipts.py": """\
from shop.pricing import PriceTable, price_of


def test_a_receipt_lists_every_price() -> None:
    assert price_of(PriceTable(), "a").cents == 100
""",
}


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _map(root: Path, **request: object) -> str:
    mapper = RepoMap(root, persist=False, workers=1, counter=EstimateCounter())
    return mapper.render(MapRequest(**request)).text  # type: ignore[arg-type]


def _headers(text: str) -> list[str]:
    """The files shown with definitions, in the map's order."""
    return [line[:-1] for line in text.splitlines()[1:] if line.endswith(":") and "│" not in line]


def test_a_focused_modules_users_and_tests_rank_above_unrelated_code(tmp_path: Path) -> None:
    root = _write(tmp_path / "shop", SHOP)
    text = _map(root, max_tokens=400, focus=("shop/pricing.py",))
    files = _headers(text)
    assert files[0] == "shop/money.py", text  # what the focus uses still leads
    for related in ("shop/checkout.py", "tests/test_pricing.py", "tests/test_receipts.py"):
        assert related in files, text
        assert files.index(related) < files.index("shop/shipping.py"), text


def test_without_a_focus_the_users_and_tests_are_not_lifted(tmp_path: Path) -> None:
    root = _write(tmp_path / "shop", SHOP)
    files = _headers(_map(root, max_tokens=400))
    assert files.index("shop/shipping.py") < files.index("tests/test_pricing.py")


def test_a_file_the_message_names_brings_its_users_too(tmp_path: Path) -> None:
    root = _write(tmp_path / "shop", SHOP)
    text = _map(root, max_tokens=400, message="pricing.py rounds wrongly")
    files = _headers(text)
    assert files.index("shop/checkout.py") < files.index("shop/shipping.py"), text


@pytest.mark.slow  # a zizou process
def test_zizou_map_focused_on_a_module_shows_its_users_and_tests_under_any_hash_seed(
    tmp_path: Path,
) -> None:
    root = _write(tmp_path / "shop", SHOP)
    command = [sys.executable, "-m", "zizou", "map", "-C", str(root), "--tokens", "400"]
    outputs = set()
    for seed in ("0", "random"):
        done = subprocess.run(
            [*command, "--focus", "shop/pricing.py"],
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=True,
            timeout=scaled(120),
        )
        outputs.add(done.stdout.decode())
    assert len(outputs) == 1
    files = _headers(outputs.pop())
    for related in ("shop/checkout.py", "tests/test_pricing.py", "tests/test_receipts.py"):
        assert files.index(related) < files.index("shop/shipping.py"), files


PYTHON_SUBJECT = "def parse_line(text: str) -> list[str]:\n    return text.split()\n"
PYTHON_TEST = "def test_splits_words() -> None:\n    assert True\n"
GO_SUBJECT = "package lib\n\nfunc ParseLine(text string) []string {\n\treturn nil\n}\n"
GO_TEST = 'package lib\n\nimport "testing"\n\nfunc TestSplitsWords(t *testing.T) {\n}\n'
JAVA_SUBJECT = (
    "package org.shop;\n\npublic class Parser {\n"
    "    public String[] parseLine(String text) {\n        return null;\n    }\n}\n"
)
SCRIPT_SUBJECT = "export function parseLine(text: string): string[] {\n  return [];\n}\n"
SCRIPT_TEST = "function splitsWords(): void {\n}\n"
JS_SUBJECT = "export function parseLine(text) {\n  return [];\n}\n"
JS_TEST = "function splitsWords() {\n}\n"


def _java_test(name: str) -> str:
    return f"package org.shop;\n\nclass {name} {{\n    void splitsWords() {{\n    }}\n}}\n"


NAMED_TESTS = [
    ("lib/parser.py", PYTHON_SUBJECT, "lib/test_parser.py", PYTHON_TEST),
    ("lib/parser.py", PYTHON_SUBJECT, "lib/parser_test.py", PYTHON_TEST),
    ("lib/parser.py", PYTHON_SUBJECT, "tests/unit/test_parser.py", PYTHON_TEST),
    ("lib/parser.go", GO_SUBJECT, "lib/parser_test.go", GO_TEST),
    *(
        (
            "src/main/java/org/shop/Parser.java",
            JAVA_SUBJECT,
            f"src/test/java/org/shop/Parser{suffix}.java",
            _java_test(f"Parser{suffix}"),
        )
        for suffix in ("Test", "Tests", "IT")
    ),
    ("web/parser.ts", SCRIPT_SUBJECT, "web/parser.spec.ts", SCRIPT_TEST),
    ("web/parser.ts", SCRIPT_SUBJECT, "web/parser.test.ts", SCRIPT_TEST),
    ("web/parser.js", JS_SUBJECT, "web/parser.spec.js", JS_TEST),
    ("web/parser.tsx", SCRIPT_SUBJECT, "web/parser.test.tsx", SCRIPT_TEST),
    ("web/parser.jsx", JS_SUBJECT, "web/parser.spec.jsx", JS_TEST),
]


@pytest.mark.parametrize(
    ("subject", "subject_text", "test", "test_text"), NAMED_TESTS, ids=[t[2] for t in NAMED_TESTS]
)
def test_a_test_named_after_the_focused_file_shows_above_unrelated_code(
    tmp_path: Path, subject: str, subject_text: str, test: str, test_text: str
) -> None:
    """The test uses nothing of its subject here: only its name ties them."""
    unrelated = {
        f"other/module_{i}.py": f"def helper_{i}(value: int) -> int:\n    return value\n"
        for i in range(3)
    }
    users = {
        f"other/user_{i}.py": f"from other.module_{i} import helper_{i}\n\n\n"
        f"def use_{i}() -> int:\n    return helper_{i}(1)\n"
        for i in range(3)
    }
    root = _write(
        tmp_path / "project", {subject: subject_text, test: test_text, **unrelated, **users}
    )
    text = _map(root, max_tokens=400, focus=(subject,))
    files = _headers(text)
    assert files[0] == test, text
    unfocused = _headers(_map(root, max_tokens=400))
    assert unfocused.index(test) > unfocused.index("other/module_0.py")


def test_the_nearest_of_tests_with_the_same_name_is_taken(tmp_path: Path) -> None:
    root = _write(
        tmp_path / "project",
        {
            "alpha/util.py": PYTHON_SUBJECT,
            "beta/util.py": PYTHON_SUBJECT.replace("parse_line", "split_line"),
            "alpha/tests/test_util.py": PYTHON_TEST,
            "beta/tests/test_util.py": PYTHON_TEST.replace("splits", "breaks"),
        },
    )
    files = _headers(_map(root, max_tokens=400, focus=("alpha/util.py",)))
    assert files[0] == "alpha/tests/test_util.py"
    assert files.index("beta/tests/test_util.py") > files.index("beta/util.py")


# The map focused on app/views.py (which nothing uses, and which has no tests) as rendered before
# a focus brought in its users and tests: with nothing to bring, the map must not change.
VIEWS_MAP = """\
Relevant definitions by file (line│signature):
app/util.py:
    1│def slugify(text: str) -> str:
    5│def chunk_list(items: list[int], size: int) -> list[list[int]]:
app/service.py:
    5│class UserService:
    6│    def __init__(self, database: Database) -> None:
    9│    def find_user(self, user_id: int) -> User:
   12│    def orders_of(self, user: User) -> list[Order]:
   16│def make_service() -> UserService:
app/models.py:
    1│class User:
    2│    def __init__(self, name: str) -> None:
    6│class Order:
    7│    def total(self) -> int:
   11│def load_user(user_id: int) -> User:
app/db.py:
    4│class Database:
    5│    def query(self, sql: str) -> list[User]:
    9│def connect(url: str) -> Database:
   13│def save_order(order: Order) -> None:
app/report.py:
    5│def monthly_report(orders: list[Order], user: User) -> list[list[int]]:
app/admin.py:
    4│def ban(user: User) -> None:
    8│def refund(order: Order) -> User:
polyglot/widget.tsx:
    3│interface Props
    7│export function Panel(props: Props)
   11│export const Header = ({ label }: Props) => <h1>{label}</h1>;
"""


def test_a_focus_with_no_users_or_tests_gives_the_map_of_before(project: Path) -> None:
    assert _map(project, max_tokens=300, focus=("app/views.py",)) == VIEWS_MAP


def test_a_kept_ranking_with_relatives_renders_what_a_fresh_map_renders(tmp_path: Path) -> None:
    root = _write(tmp_path / "shop", SHOP)
    requests = [
        MapRequest(max_tokens=400, focus=("shop/pricing.py",)),
        MapRequest(max_tokens=400, focus=("shop/shipping.py",)),
        MapRequest(max_tokens=390, focus=("shop/pricing.py",)),
        MapRequest(max_tokens=400, focus=("shop/pricing.py", "shop/shipping.py")),
        MapRequest(max_tokens=400),
        MapRequest(max_tokens=400, focus=("shop/pricing.py",)),
    ]
    kept = RepoMap(root, persist=False, workers=1, counter=EstimateCounter())
    for request in requests:
        fresh = RepoMap(root, persist=False, workers=1, counter=EstimateCounter())
        assert kept.render(request).text == fresh.render(request).text, request
