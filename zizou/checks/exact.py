"""The exact parsers bundled with Python, run on a changed file: Python's own compiler, and
the standard library's JSON and TOML readers.

tree-sitter's grammars forgive what these reject: the Python grammar accepts an unexpected
indent, an unindent to no outer level and tabs mixed with spaces, each of which stops the
module from importing. A compile takes a few milliseconds, in-process. Each parser says its
first error only, which is new unless the content before the change had the same one on the
line it moved to.
"""

from __future__ import annotations

import json
import tomllib
import warnings
from collections.abc import Callable
from pathlib import PurePosixPath

from zizou.checks.report import Finding as Problem


def _python(rel: str, data: bytes) -> Problem | None:
    try:
        with warnings.catch_warnings():  # a SyntaxWarning is not the change's problem
            warnings.simplefilter("ignore")
            compile(data, rel, "exec", dont_inherit=True)
    except SyntaxError as err:  # IndentationError and TabError among them
        line = err.lineno or 1
        column = err.offset or 0
        return Problem(line, max(column, 0), f"{type(err).__name__}: {err.msg} (Python's compiler)")
    except ValueError as err:  # null bytes
        return Problem(1, 0, f"SyntaxError: {err} (Python's compiler)")
    return None


def _json(rel: str, data: bytes) -> Problem | None:
    try:
        json.loads(data)
    except json.JSONDecodeError as err:
        return Problem(err.lineno, err.colno, f"{err.msg} (JSON parser)")
    except UnicodeDecodeError:
        return None
    return None


def _toml(rel: str, data: bytes) -> Problem | None:
    try:
        tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        line, column = _toml_place(message)
        return Problem(line, column, f"{message.split(' (at ')[0]} (TOML parser)")
    except UnicodeDecodeError:
        return None
    return None


def _toml_place(message: str) -> tuple[int, int]:
    """tomllib says where only in its message: "... (at line 3, column 5)"."""
    words = message.rpartition("(at ")[2].rstrip(")").replace(",", "").split()
    if len(words) == 4 and words[0] == "line" and words[1].isdigit() and words[3].isdigit():
        return int(words[1]), int(words[3])
    return 1, 0


PARSERS: dict[str, Callable[[str, bytes], Problem | None]] = {
    ".py": _python,
    ".pyi": _python,
    ".json": _json,
    ".toml": _toml,
}


def exact_problem(rel: str, data: bytes) -> Problem | None:
    """The first error the exact parser of `rel`'s kind finds in `data`; None when it parses
    or no exact parser knows the kind."""
    parse = PARSERS.get(PurePosixPath(rel).suffix.lower())
    return None if parse is None else parse(rel, data)


def has_exact_parser(rel: str) -> bool:
    return PurePosixPath(rel).suffix.lower() in PARSERS


__all__ = ["PARSERS", "exact_problem", "has_exact_parser"]
