"""The edit engine through the real `zizou -p` against the loopback server: a scripted model
reads files, then sends edit_file calls quoted the ways models misquote code. Each kind of
misquote lands, says how it matched, and changes nothing but the lines it names; an ambiguous
quote is refused; several edits in one call are made all together or not at all. The slips a
match proved (curly quotes, tabs for spaces and back) are undone in the lines written, an
elided run lands when it is unique, and a write that does not compile is reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

APP = """import os


def load(path):
    with open(path) as handle:\t
        return handle.read()


class Store:
    def __init__(self, root):
        self.root = root
        self.items = {}

    def put(self, key, value):
        self.items[key] = value

        return value

    def describe(self):
        return "a store \u2014 of things"
"""
WIN = b"def main():\r\n    print('hi')\r\n    return 0\r\n"
CONFIG = (
    "def configure(options):\n"
    "    if options.get('debug'):  \n"  # trailing spaces the quote below leaves out
    '        level = "debug"\n'
    "\n"
    "        print('debug on')\n"
    "    return options\n"
)
TWICE = """def a():
    x = compute()
    return x


class B:
    def b(self):
        x = compute()
        return x
"""
CONSTANTS = "A = 1\nB = 2  \nC = 3\n"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def edit(path: str, old: str, new: str) -> dict[str, Any]:
    return call("edit_file", path=path, old_string=old, new_string=new)


def edits(path: str, *pairs: tuple[str, str]) -> dict[str, Any]:
    listed = [{"old_string": old, "new_string": new} for old, new in pairs]
    return call("edit_file", path=path, edits=listed)


SCRIPT = [
    *(
        call("read_file", path=name)
        for name in ("app.py", "win.py", "config.py", "twice.py", "constants.py")
    ),
    edit(  # trailing whitespace: the file's line has a tab the quote lacks
        "app.py",
        "    with open(path) as handle:\n        return handle.read()\n",
        '    with open(path, encoding="utf-8") as handle:\n        return handle.read()\n',
    ),
    edit(  # indentation: the method quoted from column 0
        "app.py",
        "def __init__(self, root):\n    self.root = root\n    self.items = {}",
        "def __init__(self, root):\n    self.root = root\n    self.items = {}\n    self.hits = 0",
    ),
    edit(  # blank lines: the quote lacks the blank line inside the method
        "app.py",
        "        self.items[key] = value\n        return value\n",
        "        self.items[key] = value\n        return self.items[key]\n",
    ),
    edit(  # look-alikes: curly quotes the file does not have, a hyphen for its em dash
        "app.py",
        "    def describe(self):\n        return \u201ca store - of things\u201d\n",
        "    def describe(self):\n        return \u201ca store - of things\u201d\n\n"
        "    def size(self):\n        return len(self.items)\n",
    ),
    edit("win.py", "    print('hi')\n    return 0\n", "    print('hello')\n    return 0\n"),
    edit(  # all at once: dedented, trailing spaces lost, curly quotes, a blank line lost
        "config.py",
        "if options.get(\u2018debug\u2019):\n    level = \u201cdebug\u201d\n"
        "    print(\u2018debug on\u2019)\n",
        "if options.get(\u2018debug\u2019):\n    level = \u201cdebug\u201d\n    log('debug on')\n",
    ),
    edit("twice.py", "x = compute()\nreturn x", "x = compute()\nreturn x + 1"),
    edits("constants.py", ("A = 1", "A = 10"), ("D = 4", "D = 40"), ("C = 3", "C = 30")),
    edits("constants.py", ("A = 1", "A = 10"), ("B = 2\n", "B = 20\n"), ("C = 3", "C = 30")),
    {"text": "done"},
]


def test_each_misquote_lands_an_ambiguous_one_is_refused_and_edits_are_all_or_nothing(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text(APP)
    (project / "win.py").write_bytes(WIN)
    (project / "config.py").write_text(CONFIG)
    (project / "twice.py").write_text(TWICE)
    (project / "constants.py").write_text(CONSTANTS)
    with LoopbackServer(SCRIPT) as srv:
        args = ["-p", "edit", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "json"], project, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    said = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"][5:]
    oks = [c["ok"] for c in result.json()["tool_calls"]][5:]
    assert oks == [True, True, True, True, True, True, False, False, True], said

    for text, how in zip(said, ("trailing whitespace", "indentation", "blank lines"), strict=False):
        assert text.splitlines()[0].endswith(f"(matched after normalising {how}).")
    assert "(matched after normalising look-alike characters)." in said[3]
    assert "(matched after normalising line endings)." in said[4]
    assert (
        "(matched after normalising trailing whitespace, indentation, look-alike characters "
        "and blank lines)." in said[5]
    )
    assert "matches 2 places (lines 2-3, 8-9)" in said[6]
    assert said[7].startswith("Error: edit 2 of 3 failed, so none was made")
    assert said[8].startswith("Made 3 edits to constants.py:")

    size = "\n    def size(self):\n        return len(self.items)\n"
    assert (project / "app.py").read_text() == (
        APP.replace("open(path) as handle:\t", 'open(path, encoding="utf-8") as handle:')
        .replace("self.items = {}\n", "self.items = {}\n        self.hits = 0\n")
        .replace("        return value\n", "        return self.items[key]\n")
        .replace('of things"\n', 'of things"\n' + size)
    )
    assert (project / "win.py").read_bytes() == WIN.replace(b"'hi'", b"'hello'")
    assert (project / "config.py").read_text() == CONFIG.replace(
        "        print('debug on')", "        log('debug on')"
    )
    assert (project / "twice.py").read_text() == TWICE
    assert (project / "constants.py").read_text() == "A = 10\nB = 20\nC = 30\n"


QUOTES = 'def settings():\n    return {"a": 2}\n'
SPACED = (
    "def total(items):\n    count = 0\n    for item in items:\n        count += item\n"
    "    return count\n"
)
TABBED = SPACED.replace("    ", "\t")
ELIDED = (
    "def load(path):\n    with open(path) as handle:\n        data = handle.read()\n"
    "    data = data.strip()\n    return data\n"
)
ELIDED_TWICE = ELIDED + "\n\ndef load_twice(path):\n    data = load(path)\n    return data\n"
ELISION_OLD = "def load(path):\n    # ... existing code ...\n    return data\n"
ELISION_NEW = "def load(path):\n    # ... existing code ...\n    return data.upper()\n"
SLIPS_SCRIPT = [
    *(
        call("read_file", path=name)
        for name in ("quotes.py", "spaced.py", "tabbed.py", "elided.py", "twice.py")
    ),
    edit("quotes.py", "    return {“a”: 2}\n", "    return {“a”: 3, “b”: 4}\n"),
    edit(
        "spaced.py",
        "\tfor item in items:\n\t\tcount += item\n",
        "\tfor item in items:\n\t\tif item > 0:\n\t\t\tcount += item\n",
    ),
    edit(
        "tabbed.py",
        "    for item in items:\n        count += item\n",
        "    for item in items:\n        if item > 0:\n            count += item\n",
    ),
    edit("elided.py", ELISION_OLD, ELISION_NEW),
    edit("twice.py", ELISION_OLD, ELISION_NEW),
    call("write_file", path="broken.py", content="def f():\n    x = 1\n  return x\n"),
    {"text": "done"},
]


def test_slips_land_as_the_file_writes_and_a_broken_write_is_reported(
    project: Path, zizou_home: Path
) -> None:
    files = {
        "quotes.py": QUOTES,
        "spaced.py": SPACED,
        "tabbed.py": TABBED,
        "elided.py": ELIDED,
        "twice.py": ELIDED_TWICE,
        "broken.py": "def f():\n    return 1\n",
    }
    for name, text in files.items():
        (project / name).write_text(text)
    with LoopbackServer(SLIPS_SCRIPT) as srv:
        args = ["-p", "edit", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "json"], project, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    said = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"][5:]
    oks = [c["ok"] for c in result.json()["tool_calls"]][5:]
    assert oks == [True, True, True, True, False, True], said

    assert (project / "quotes.py").read_text() == 'def settings():\n    return {"a": 3, "b": 4}\n'
    assert "wrote straight quotes as the file has them" in said[0]
    nested = "        if item > 0:\n            count += item\n"
    assert (project / "spaced.py").read_text() == SPACED.replace("        count += item\n", nested)
    assert "indented the new lines with 4 spaces as the file is" in said[1]
    assert (project / "tabbed.py").read_text() == TABBED.replace(
        "\t\tcount += item\n", "\t\tif item > 0:\n\t\t\tcount += item\n"
    )
    assert "indented the new lines with tabs as the file is" in said[2]
    assert (project / "elided.py").read_text() == ELIDED.replace(
        "    return data\n", "    return data.upper()\n"
    )
    assert "lines 2-4 kept as they are for old_string's elision" in said[3]
    assert "match 2 places in twice.py (lines 1-5, lines 1-10)" in said[4]
    assert (project / "twice.py").read_text() == ELIDED_TWICE
    for name in ("quotes.py", "spaced.py", "tabbed.py", "elided.py"):
        compile((project / name).read_text(), name, "exec")

    assert said[5].startswith("Overwrote broken.py")
    assert "New syntax problems after this change (it was applied):" in said[5]
    assert (
        "- line 3, column 11: IndentationError: unindent does not match any outer indentation "
        "level (Python's compiler)" in said[5]
    )


def test_with_refuse_breaking_a_write_that_breaks_a_file_is_refused(
    project: Path, zizou_home: Path
) -> None:
    (zizou_home / "config.toml").write_text("[checks]\nrefuse_breaking = true\n")
    (project / "m.py").write_text(SPACED)
    script = [
        call("read_file", path="m.py"),
        edit("m.py", "    return count\n", "  return count\n"),
        edit("m.py", "    return count\n", "    return count + 1\n"),
        {"text": "done"},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "edit", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "json"], project, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    said = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"][1:]
    assert [c["ok"] for c in result.json()["tool_calls"]][1:] == [False, True], said
    assert said[0].startswith("Error: m.py was not changed: it parses now")
    assert "line 5, column 15: IndentationError: unindent does not match" in said[0]
    assert (project / "m.py").read_text() == SPACED.replace("return count", "return count + 1")
