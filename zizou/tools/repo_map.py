"""The repo_map tool: the model asks for a map of the code around given files or names.

The prompt already carries a small map ranked for the user's message; this tool lets the model
look elsewhere (a directory it is about to change, the definitions of names it saw in an error)
with a budget of its own, without reading whole files. It shares the prompt's warm RepoMap.
"""

from __future__ import annotations

import asyncio
import re

from pydantic import Field, field_validator

from zizou import confined
from zizou.errors import PathError
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, place_access

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


class RepoMapArgs(ToolArgs):
    paths: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="Files or directories to focus on.",
    )
    identifiers: list[str] = Field(
        default_factory=list,
        max_length=30,
        description="Names of classes, functions or methods to show first.",
    )
    max_tokens: int = Field(default=2048, ge=256, le=8192, description="Size of the map in tokens.")

    @field_validator("identifiers")
    @classmethod
    def _plain_names(cls, names: list[str]) -> list[str]:
        bad = [name for name in names if not _IDENTIFIER.fullmatch(name)]
        if bad:
            raise ValueError(f"not identifiers: {bad}; give bare names such as `parse_args`")
        return names


class RepoMap(Tool[RepoMapArgs]):
    """Map the project's code: the most relevant classes, functions and methods, with their
    signatures and line numbers, by file.

    `paths` shows their definitions and the code they use; `identifiers` finds where names are
    defined; with neither, it maps the whole project. Cheaper than reading files to find your way.
    """

    name = "repo_map"
    access_kind = "read"
    side_by_side = True
    summary = (
        "Map classes, functions and signatures with line numbers, focused on given paths or names."
    )
    Args = RepoMapArgs

    def label(self, args: RepoMapArgs) -> str:
        return " ".join([*args.paths, *args.identifiers]) or "the whole project"

    def access(self, args: RepoMapArgs, ctx: ToolContext) -> Access:
        return place_access("read", ctx, *(args.paths or ["."]))

    async def execute(self, args: RepoMapArgs, access: Access, ctx: ToolContext) -> ToolResult:
        focus = list(access.paths) if args.paths else []
        for path, rel in zip(access.places, access.paths, strict=True):
            try:
                info = confined.stat(ctx.root, path)
            except PathError as err:
                return ToolResult.error(str(err))
            if info is None:
                return ToolResult.error(f"{rel} does not exist; give a file or directory")
        if ctx.code_map is None:
            return ToolResult.error("the repo map is not available in this session")
        focused = ctx.code_map.focused
        text = await asyncio.to_thread(
            focused, tuple(focus), tuple(args.identifiers), args.max_tokens
        )
        if not text:
            return ToolResult(ok=True, output="No source files to map in this project.")
        return ToolResult(ok=True, output=text)


TOOL = RepoMap()
