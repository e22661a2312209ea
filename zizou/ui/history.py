"""The prompt's history of sent messages, walked with up and down like a shell's."""

from __future__ import annotations


class InputHistory:
    """Sent entries, oldest first. Walking keeps what was typed before the walk began."""

    def __init__(self, entries: list[str] | None = None, limit: int = 500) -> None:
        self.entries: list[str] = list(entries or [])
        self.limit = limit
        self._index: int | None = None
        self._draft = ""

    def add(self, text: str) -> None:
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[: -self.limit]
        self._index = None

    def previous(self, current: str) -> str | None:
        """The entry before the one shown, or None at the oldest."""
        if not self.entries:
            return None
        if self._index is None:
            self._draft = current
            self._index = len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def next(self) -> str | None:
        """The entry after the one shown; the draft after the newest; None when not walking."""
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def reset(self) -> None:
        self._index = None


__all__ = ["InputHistory"]
