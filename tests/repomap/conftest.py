"""A small Python project whose structure the ranking tests can reason about.

`models.py` is the most used file (everything needs User and Order); `views.py` uses only
`service.py` and `util.py`. So the unfocused map should lead with models, and a map focused on
views should lead with service and util.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FILES = {
    "app/models.py": """\
class User:
    def __init__(self, name: str) -> None:
        self.name = name


class Order:
    def total(self) -> int:
        return 0


def load_user(user_id: int) -> User:
    return User(str(user_id))
""",
    "app/db.py": """\
from app.models import Order, User


class Database:
    def query(self, sql: str) -> list[User]:
        return []


def connect(url: str) -> Database:
    return Database()


def save_order(order: Order) -> None:
    pass
""",
    "app/service.py": """\
from app.db import Database, connect
from app.models import Order, User, load_user


class UserService:
    def __init__(self, database: Database) -> None:
        self.database = database

    def find_user(self, user_id: int) -> User:
        return load_user(user_id)

    def orders_of(self, user: User) -> list[Order]:
        return []


def make_service() -> UserService:
    return UserService(connect("sqlite://"))
""",
    "app/util.py": """\
def slugify(text: str) -> str:
    return text.lower().replace(" ", "-")


def chunk_list(items: list[int], size: int) -> list[list[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
""",
    "app/views.py": """\
from app.service import UserService, make_service
from app.util import slugify


def show_user(user_id: int) -> str:
    service: UserService = make_service()
    return slugify(service.find_user(user_id).name)
""",
    "app/report.py": """\
from app.models import Order, User
from app.util import chunk_list


def monthly_report(orders: list[Order], user: User) -> list[list[int]]:
    return chunk_list([o.total() for o in orders], 10)
""",
    "app/admin.py": """\
from app.models import Order, User, load_user


def ban(user: User) -> None:
    pass


def refund(order: Order) -> User:
    return load_user(1)
""",
    "README.md": "# app\n",
    "docs/guide.txt": "How to use the app.\n",
}


def write_project(root: Path, extra_modules: int = 0) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for i in range(extra_modules):
        path = root / "gen_pkg" / f"mod_{i:03d}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"from app.models import User\n\n\nclass Thing{i}(User):\n"
            f"    def run_{i % 7}(self) -> None:\n        helper_{(i * 3) % 11}(self)\n\n\n"
            f"def helper_{i % 11}(thing: Thing{i}) -> None:\n    pass\n",
            encoding="utf-8",
        )
    langs = Path(__file__).parent / "fixtures" / "langs"
    shutil.copytree(langs, root / "polyglot")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "project")
