"""Textual's TextArea, imported without tree-sitter.

Textual's TextArea loads tree-sitter when it is installed, to offer syntax highlighting; zizou
has it installed for the repo map, so the prompt would load the parser's binding (several
milliseconds) before the first frame, for a highlighting no text area of the app uses. The first
import of the widget is made with tree-sitter hidden, so Textual's TextArea takes it as missing;
the repo map imports tree-sitter itself later, in the session's thread. The app's modules import
TextArea from here, before any thread of theirs starts. Where tree-sitter is already imported
(a process that built a map first), the widget is imported as it is.
"""

from __future__ import annotations

import sys


def _load_without_tree_sitter() -> None:
    if "tree_sitter" in sys.modules:
        return
    sys.modules["tree_sitter"] = None  # type: ignore[assignment]  # its import raises ImportError
    try:
        import textual.widgets._text_area  # noqa: F401  # Textual's TextArea, loaded here
    finally:
        del sys.modules["tree_sitter"]


_load_without_tree_sitter()
from textual.widgets import TextArea  # noqa: E402  # the class loaded just above

__all__ = ["TextArea"]
