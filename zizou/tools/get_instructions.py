"""The get_instructions tool: the full text of an instruction the INSTRUCTIONS section lists.

The prompt carries only each instruction's name and one-line summary; the model asks for the
procedure when it starts that kind of task. A sticky instruction stays in the prompt for the
rest of the session once asked for.
"""

from __future__ import annotations

from pydantic import Field

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult


class GetInstructionsArgs(ToolArgs):
    name: str = Field(description="The instruction's name, or '?'.")


class GetInstructions(Tool[GetInstructionsArgs]):
    """Read the full procedure of an instruction listed in INSTRUCTIONS before you start
    that kind of task, then follow it; '?' lists them all."""

    name = "get_instructions"
    access_kind = "read"
    summary = "Read the full procedure of an instruction listed in INSTRUCTIONS ('?' lists all)."
    Args = GetInstructionsArgs
    label_field = "name"

    def access(self, args: GetInstructionsArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")  # files zizou loaded when the session began

    def work(self, args: GetInstructionsArgs, access: Access, ctx: ToolContext) -> ToolResult:
        found = ctx.instructions
        if found is None or not len(found):
            return ToolResult.error("there are no instructions in this session")
        text = found.lookup(args.name)
        instruction = found.get(args.name)
        if args.name.strip() != "?" and instruction is None:
            return ToolResult.error(text)
        if instruction is not None and instruction.sticky:
            ctx.state.add_sticky(instruction.name)
        return ToolResult(ok=True, output=text)


TOOL = GetInstructions()
