"""`/permissions`: every approval rule in force, where it comes from, and removing a saved one.

The rules saved with "always" (a command prefix, an MCP tool) live in the user's config dir,
per project (config/project_rules.py); the others were given on the command line (`--allow`)
or by an "always" for this session only. A saved rule removed here is forgotten on disk and
stops applying at once, so the next such call asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zizou.errors import ZizouError
from zizou.ui.host import ShowScreen
from zizou.ui.screens.picker import Entry, PickerScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from pathlib import Path

    from zizou.session.kernel import Session
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening

SAVED = "saved for this project"
SAVED_TOOL = "saved-tool:"  # an entry's value: an MCP tool rule saved for the project
SESSION_PREFIX = "session:"
SESSION_TOOL = "tool:"


class RuleCommands:
    def __init__(self, host: Host, opening: Opening, notices: Notices) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices

    @property
    def root(self) -> Path:
        return self.opening.current.root

    @property
    def kernel(self) -> Session:
        return self.opening.current.kernel

    @slash("permissions", help="list and remove saved approval rules", section="tools")
    async def permissions(self, args: list[str]) -> None:
        from zizou.config.project_rules import load_prefixes, load_tool_rules, rules_path

        try:
            prefixes, tools = load_prefixes(self.root), load_tool_rules(self.root)
        except ZizouError as exc:
            await self.notices.add_notice(str(exc), "error", None)
            return
        rules = self.kernel.rules
        entries = [Entry(p, f"run_bash: {p}", SAVED, True) for p in prefixes]
        entries += [Entry(f"{SAVED_TOOL}{t}", t, SAVED, True) for t in tools]
        entries += [
            Entry(f"{SESSION_PREFIX}{p}", f"run_bash: {p}", "this session only (--allow)")
            for p in rules.bash_prefixes
            if p not in prefixes
        ]
        entries += [
            Entry(f"{SESSION_TOOL}{t}", t, "this session only")
            for t in sorted(rules.allowed_tools)
            if t not in tools
        ]
        title = f"Approval rules ({rules_path(self.root)})"
        self.host.post_message(ShowScreen(PickerScreen(title, entries, pick=False)))

    async def remove(self, value: str) -> None:
        """Forget the saved rule an entry of the list stands for; it applies no more."""
        from zizou.config.project_rules import remove_prefix, remove_tool_rule

        kernel = self.kernel
        if value.startswith(SAVED_TOOL):
            tool = value.removeprefix(SAVED_TOOL)
            remove_tool_rule(self.root, tool)
            kernel.forget_tool_rule(tool)  # saved, and "always" in this session
            said = f"Removed the rule `{tool}`: that tool asks again."
        else:
            remove_prefix(self.root, value)
            kernel.forget_command_rule(value)
            said = f"Removed the rule `{value}`: such commands ask again."
        await self.notices.add_notice(said, "success", None)


__all__ = ["RuleCommands"]
