"""Each language's queries find the right definitions and references on a small fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.repomap.tags import FileTags, extract_tags, language_for

FIXTURES = Path(__file__).parent / "fixtures" / "langs"

# file -> (definitions as (name, kind), names it uses, names it must not count as uses)
EXPECTED: dict[str, tuple[set[tuple[str, str]], set[str], set[str]]] = {
    "shapes.py": (
        {
            ("DEFAULT_SCALE", "constant"),
            ("Shape", "class"),
            ("Circle", "class"),
            ("area", "function"),
            ("compute_area", "function"),
        },
        {"Vector", "norm", "Base", "Shape", "compute_area", "DEFAULT_SCALE", "dataclass"},
        {"Circle", "radius_unused"},
    ),
    "stubs.pyi": (
        {("Stub", "class"), ("method", "function"), ("helper", "function")},
        {"Widget"},
        {"Stub"},
    ),
    "app.js": (
        {
            ("Store", "class"),
            ("dispatch", "method"),
            ("reduce", "function"),
            ("selectUser", "function"),
            ("fetchUser", "function"),
        },
        {"render", "merge", "Request", "EventTarget", "reduce"},
        {"dispatch", "selectUser"},
    ),
    "service.ts": (
        {
            ("UserRepo", "interface"),
            ("UserId", "type"),
            ("Role", "enum"),
            ("UserService", "class"),
            ("find", "method"),
            ("loadUser", "function"),
            ("makeService", "function"),
        },
        {"Logger", "User", "UserRepo", "UserId", "loadUser", "Promise"},
        {"Role", "makeService"},
    ),
    "widget.tsx": (
        {("Props", "interface"), ("Panel", "function"), ("Header", "function")},
        {"Button", "Props", "formatLabel"},
        {"Panel", "Header"},
    ),
    "server.go": (
        {
            ("Server", "type"),
            ("Handler", "type"),
            ("Serve", "method"),
            ("DefaultPort", "constant"),
            ("NewServer", "function"),
            ("Start", "method"),
        },
        {"Server", "Handler", "Request", "listen", "ServeMux"},
        {"NewServer", "Start"},
    ),
    "lib.rs": (
        {
            ("Cache", "struct"),
            ("Mode", "enum"),
            ("Evict", "trait"),
            ("evict", "function"),
            ("new", "function"),
            ("get", "function"),
            ("cached", "macro"),
            ("build", "function"),
        },
        {"Store", "Entry", "Cache", "new", "open", "lookup"},
        {"build", "Evict", "Mode"},
    ),
    "Repository.java": (
        {
            ("Repository", "class"),
            ("Repository", "method"),
            ("findOrders", "method"),
            ("Listener", "interface"),
            ("onChange", "method"),
            ("Status", "enum"),
        },
        {"BaseRepository", "Closeable", "Connection", "Order", "OrderQuery", "query", "Override"},
        {"findOrders", "Listener", "Status"},
    ),
    "Player.kt": (
        {
            ("Player", "class"),
            ("Scorer", "class"),
            ("score", "function"),
            ("Registry", "class"),
            ("register", "function"),
            ("topPlayer", "function"),
            ("Roster", "type"),
        },
        {"Entity", "Engine", "add", "log", "Player"},
        {"game", "engine", "topPlayer", "Roster"},
    ),
    "buffer.c": (
        {
            ("BUFFER_MAX", "macro"),
            ("CLAMP", "macro"),
            ("buffer", "struct"),
            ("buffer_t", "type"),
            ("mode", "enum"),
            ("buffer_append", "function"),
            ("grow", "function"),
        },
        {"buffer_t", "grow", "reserve", "strlen", "CLAMP"},
        {"buffer_append", "mode"},
    ),
    "engine.cpp": (
        {
            ("physics", "module"),
            ("Engine", "class"),
            ("Engine", "function"),
            ("step", "method"),
            ("Body", "struct"),
            ("clamp", "function"),
        },
        {"System", "World", "Vec3", "collide", "integrate", "bodies"},
        {"Body", "clamp", "physics"},
    ),
    "Billing.cs": (
        {
            ("IInvoiceStore", "interface"),
            ("Load", "method"),
            ("InvoiceService", "class"),
            ("InvoiceService", "method"),
            ("Total", "property"),
            ("Money", "struct"),
            ("Currency", "enum"),
            ("Receipt", "class"),
        },
        {"ServiceBase", "IInvoiceStore", "Invoice", "Ledger", "Record"},
        {"Money", "Receipt", "Currency"},
    ),
    "account.rb": (
        {
            ("Bank", "module"),
            ("Account", "class"),
            ("LIMIT", "constant"),
            ("initialize", "method"),
            ("deposit", "method"),
            ("open", "method"),
        },
        {"Base", "Ledger", "record", "notify_owner"},
        {"Account", "Bank", "deposit"},
    ),
    "Cart.php": (
        {
            ("Priced", "interface"),
            ("price", "method"),
            ("Discountable", "trait"),
            ("discount", "method"),
            ("Cart", "class"),
            ("cart_total", "function"),
        },
        {"Calculator", "Collection", "Priced", "Discountable", "applyRate", "total", "Cart"},
        {"cart_total", "discount"},
    ),
}


def _tags(name: str) -> FileTags:
    language = language_for(name)
    assert language is not None, name
    return extract_tags(language, (FIXTURES / name).read_bytes())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_definitions_and_references(name: str) -> None:
    defs, used, unused = EXPECTED[name]
    tags = _tags(name)
    found_defs = {(d[0], d[2]) for d in tags.defs}
    assert defs <= found_defs, f"missing definitions: {defs - found_defs}"
    refs = {r[0] for r in tags.refs}
    assert used <= refs, f"missing references: {used - refs}"
    assert not (unused & refs), f"counted as used: {unused & refs}"


def test_every_fixture_language_is_covered() -> None:
    languages = {language_for(name) for name in EXPECTED}
    assert languages == {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "rust",
        "java",
        "kotlin",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
    }


def test_definitions_carry_their_lines_in_order() -> None:
    tags = _tags("shapes.py")
    source = (FIXTURES / "shapes.py").read_text().splitlines()
    for name, line, _kind in tags.defs:
        assert name in source[line - 1]
    assert [d[1] for d in tags.defs] == sorted(d[1] for d in tags.defs)


def test_weak_uses_are_counted_apart() -> None:
    refs = {name: (strong, weak) for name, strong, weak in _tags("shapes.py").refs}
    assert refs["compute_area"] == (1, 0)  # called by name
    assert refs["scaled"] == (0, 1)  # a method of some object
    assert refs["radius"][1] > 0 and refs["radius"][0] == 0  # `self.radius`, passed as a value


def test_language_by_suffix() -> None:
    assert language_for("a/b/c.PY") == "python"
    assert language_for("x.pyi") == "python"
    assert language_for("include/api.h") == "cpp"
    assert language_for("README.md") is None
    assert language_for("Makefile") is None
    assert language_for("dir.py/file") is None


def test_broken_source_still_yields_what_parses() -> None:
    tags = extract_tags("python", b"def good(a):\n    return helper(a)\n\ndef broken(:\n")
    assert ("good", 1, "function") in tags.defs
    assert "helper" in {r[0] for r in tags.refs}
