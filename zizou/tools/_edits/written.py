"""How the lines the model wrote go into a block found by a tolerant rule: with the slips its
match proved undone, so the file keeps its own conventions.

Look-alikes (`slips`) are written as the file has them; indentation moves from the quote's to
the file's, level for level when the two are indented differently (tabs for spaces, two spaces
a level for four: `units`), else by the difference of the two blocks' indentation as before
(`patch.reindent`). What was corrected is kept for the result to say.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zizou.tools._edits.patch import reindent
from zizou.tools._edits.rules import Found
from zizou.tools._edits.slips import Proof, described, proof_of, undo_slips
from zizou.tools._edits.units import SPACES, quote_unit, reindented


@dataclass
class LineWriter:
    """Writes new_string's lines into one found block (a `patch.Writer`)."""

    old: list[str]
    new: list[str]
    found: Found
    proof: Proof
    quote: str | None = None  # the quote's indentation unit, when it is not the file's
    unit: str | None = None  # the file's
    wrote: dict[str, str] = field(default_factory=dict)
    converted: bool = False

    def __call__(self, index: int, instead_of: int | None) -> str:
        old_line = None if instead_of is None else self.old[instead_of]
        fixed = undo_slips(self.new[index], instead_of, old_line, self.proof)
        self.wrote.update(fixed.wrote)
        found = self.found
        if self.quote is None or self.unit is None:
            return reindent(fixed.text, found.old_indent, found.file_indent)
        line = reindented(fixed.text, found.old_indent, found.file_indent, self.quote, self.unit)
        self.converted = self.converted or line != fixed.text
        return line

    def notes(self) -> list[str]:
        """What the result says was written otherwise than the model wrote it."""
        said = [described(self.wrote)] if self.wrote else []
        if self.converted and self.unit is not None:
            how = "tabs" if self.unit == "\t" else f"{len(self.unit)} spaces"
            said.append(f"indented the new lines with {how} as the file is")
        return said


def writer_for(
    file_lines: list[str], found: Found, old: list[str], new: list[str], unit: str | None
) -> LineWriter:
    """The writer of new_string's lines into the block `found` (of `file_lines`, whose
    indentation unit is `unit`)."""
    proof = proof_of([(o, old[o], file_lines[f].removesuffix("\r")) for o, f in found.pairs])
    writer = LineWriter(old, new, found, proof)
    if unit is None:
        return writer
    quote = found.old_unit
    if quote is None:
        indents = [_indent(line) for line in (*old, *new) if line.strip(SPACES)]
        quote = quote_unit(indents, found.old_indent)
        if quote is None and "\t" in found.old_indent and "\t" not in unit:
            quote = "\t"
        if quote is None or ("\t" in quote) == ("\t" in unit):
            return writer  # not proven otherwise than the file's: moved as a whole
    if quote != unit:
        writer.quote, writer.unit = quote, unit
    return writer


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(SPACES))]
