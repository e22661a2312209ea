"""How a file's bytes become the text the tools show and change, and back, without a byte lost.

Most files are UTF-8; the rest must still be readable and editable, and an edit must never
re-encode what it did not change. A file is taken as one of:

- UTF-8, with or without a byte-order mark (the mark is not part of the text; it is written back);
- UTF-16 with a byte-order mark, little- or big-endian (written back with the same mark);
- UTF-8 with a few bytes that are not UTF-8 (a stray Latin-1 byte pasted into a UTF-8 file
  that has UTF-8 text besides):
  those bytes are kept as they are (Python's `surrogateescape`), shown as U+FFFD, and an edit
  whose new text would need to write one is refused;
- a one-byte legacy encoding when its non-ASCII bytes are not UTF-8: Windows-1252 when it has
  bytes 0x80-0x9F (where the two differ) that all mean something there, else Latin-1 (which
  gives every byte a meaning).

Whatever the encoding, `decode` then `encode` gives back the very bytes read (checked, never
assumed); a character the new text holds that the encoding cannot write makes `encode` raise
`EncodingProblem` with a message naming the character, the line and the encoding, so the
change is refused rather than written lossily. A file with a NUL early on and no UTF-16 mark,
or one whose bytes do not come back, is binary.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

SNIFF_BYTES = 8_192
UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
ESCAPED = range(0xDC80, 0xDD00)  # the code points `surrogateescape` gives bytes 0x80-0xFF
SHOWN_FOR_ESCAPED = "\ufffd"
STRAY_SHARE = 0.05  # at most this share of a UTF-8 file's non-ASCII bytes may be invalid
NAMES = {
    "utf-8": "UTF-8",
    "utf-16-le": "UTF-16 (little-endian, with a byte-order mark)",
    "utf-16-be": "UTF-16 (big-endian, with a byte-order mark)",
    "cp1252": "Windows-1252",
    "latin-1": "Latin-1 (ISO-8859-1)",
}


class EncodingProblem(ValueError):
    """The new text cannot be written in the file's encoding; the message says where and why."""


@dataclass(frozen=True)
class FileText:
    """A file's text, and how to turn text back into the file's bytes."""

    text: str  # for a file with stray bytes, each is a lone surrogate (see the module)
    codec: str  # a key of NAMES
    bom: bytes = b""
    stray: int = 0  # bytes that are not UTF-8, in a UTF-8 file

    @property
    def is_utf8(self) -> bool:
        return self.codec == "utf-8" and not self.bom and not self.stray

    @property
    def shown(self) -> str:
        """The text as the model reads it: a stray byte becomes U+FFFD."""
        return self.show(self.text)

    def show(self, text: str) -> str:
        """`text` (this file's, or made from it) as the model reads it."""
        if not self.stray:
            return text
        return "".join(SHOWN_FOR_ESCAPED if ord(c) in ESCAPED else c for c in text)

    def describe(self) -> str:
        """How the file is encoded, in words (empty for plain UTF-8)."""
        if self.is_utf8:
            return ""
        if self.stray:
            lines = stray_lines(self.text)
            where = ", ".join(str(n) for n in lines[:5]) + (" ..." if len(lines) > 5 else "")
            some = "1 byte that is" if self.stray == 1 else f"{self.stray} bytes that are"
            return (
                f"UTF-8 with {some} not UTF-8 (line{'s' * (len(lines) > 1)} {where}), shown as "
                f"{SHOWN_FOR_ESCAPED} and kept as they are; a change cannot write such a byte"
            )
        bom = " with a byte-order mark" if self.bom and self.codec == "utf-8" else ""
        return f"{NAMES[self.codec]}{bom}; changes are written back in it"

    def encode(self, text: str) -> bytes:
        """`text` in the file's encoding, its mark first; EncodingProblem when it cannot be."""
        if self.stray and text.count(SHOWN_FOR_ESCAPED) > self.text.count(SHOWN_FOR_ESCAPED):
            raise EncodingProblem(
                f"the new text has {SHOWN_FOR_ESCAPED}, which stands for a byte that is not "
                "UTF-8 in this file: the byte cannot be written back from it. Leave the lines "
                f"that hold {SHOWN_FOR_ESCAPED} out of the change; nothing was changed"
            )
        errors = "surrogateescape" if self.codec == "utf-8" else "strict"
        try:
            return self.bom + text.encode(self.codec, errors)
        except UnicodeEncodeError as err:
            raise EncodingProblem(_unwritable(text, err, self)) from None


def decode(data: bytes) -> FileText | None:
    """The text of `data`, or None when it is binary (see the module)."""
    for bom, codec in UTF16_BOMS:
        if data.startswith(bom):
            text = _or_none(data[len(bom) :], codec)
            return None if text is None else _checked(data, FileText(text, codec, bom))
    if b"\0" in data[:SNIFF_BYTES]:
        return None
    bom = codecs.BOM_UTF8 if data.startswith(codecs.BOM_UTF8) else b""
    body = data[len(bom) :]
    try:
        return FileText(body.decode("utf-8"), "utf-8", bom)
    except UnicodeDecodeError:
        pass
    text = body.decode("utf-8", "surrogateescape")
    stray = sum(1 for c in text if ord(c) in ESCAPED)
    non_ascii = sum(1 for byte in body if byte >= 0x80)
    if bom or (non_ascii > stray and stray <= max(1, STRAY_SHARE * non_ascii)):
        return _checked(data, FileText(text, "utf-8", bom, stray))
    if any(0x80 <= byte < 0xA0 for byte in data):  # where the two differ
        legacy = _or_none(data, "cp1252")
        if legacy is not None:
            return _checked(data, FileText(legacy, "cp1252"))
    return _checked(data, FileText(data.decode("latin-1"), "latin-1"))


def stray_lines(text: str) -> list[int]:
    """The numbers of the lines that hold a stray byte."""
    return [
        number
        for number, line in enumerate(text.split("\n"), 1)
        if any(ord(c) in ESCAPED for c in line)
    ]


def _or_none(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def _checked(data: bytes, decoded: FileText) -> FileText | None:
    """`decoded` when encoding its text gives back `data` exactly; else None (binary)."""
    try:
        return decoded if decoded.encode(decoded.text) == data else None
    except EncodingProblem:
        return None


def _unwritable(text: str, err: UnicodeEncodeError, how: FileText) -> str:
    char = text[err.start]
    line = text.count("\n", 0, err.start) + 1
    if ord(char) in range(0xD800, 0xE000):
        what = "a lone surrogate code point"
    else:
        what = f"{char!r} (U+{ord(char):04X})"
    return (
        f"the new text cannot be written in this file's encoding, {NAMES[how.codec]}: it has "
        f"{what} at line {line}, which that encoding cannot hold. Use characters the "
        "encoding has (or escapes the language allows), or convert the file to UTF-8 first "
        "(with a command, if the user agrees); nothing was changed"
    )


__all__ = ["EncodingProblem", "FileText", "decode", "stray_lines"]
