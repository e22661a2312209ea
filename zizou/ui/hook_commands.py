"""The hooks from the app: `/hooks` lists them (loaded, not loaded and why, waiting for the
user's trust), `/hooks trust NAME` shows a waiting project hook's code and asks whether to run
it, and once the session is open each project hook that waits for trust is asked about, one
after the other, before the messages typed meanwhile go (so a hook trusted now runs for them).

Trusting saves the hook's hash and loads it (`Session.trust_hook`, in a thread: it writes the
trust file and runs the hook's module); it runs from the next model step. A hook left untrusted
stays listed by `/hooks` for the session.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zizou.errors import ZizouError
from zizou.hooks.sources import HASH_CHARS
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.hooks.runtime import HookSource
    from zizou.session.kernel import Session
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.messages import NoticeKind, TypingClock

USAGE = "/hooks lists them; /hooks trust NAME shows a waiting project hook and asks to run it."
TRUST_FIX = "/hooks trust NAME shows a waiting hook's code and asks whether to run it."


class HookCommands:
    def __init__(
        self, host: Host, opening: Opening, notices: Notices, typing: TypingClock | None = None
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.typing = typing

    @property
    def kernel(self) -> Session:
        return self.opening.current.kernel

    async def say(self, text: str, kind: NoticeKind = "info", fix: str | None = None) -> None:
        await self.notices.add_notice(text, kind, fix)

    @slash(
        "hooks",
        "[trust NAME]",
        help="list the hooks; trust a project hook to run it",
        section="tools",
    )
    async def command(self, args: list[str]) -> None:
        """/hooks, /hooks trust NAME."""
        verb = args[0].lower() if args else ""
        if not verb:
            waiting = self.kernel.untrusted
            fix = f"{TRUST_FIX} For instance: /hooks trust {waiting[0].name}" if waiting else None
            await self.say(hooks_listing(self.kernel), fix=fix)
        elif verb != "trust":
            await self.say(f"Unknown /hooks {args[0]!r}.", "warning", USAGE)
        elif len(args) < 2:
            names = ", ".join(s.name for s in self.kernel.untrusted) or "none"
            await self.say(f"Which hook? Waiting for your trust: {names}.", "warning", USAGE)
        elif (source := find_untrusted(self.kernel, args[1])) is not None:
            self.host.run_worker(self.ask(source), group="hooks")
        else:
            await self.say(not_waiting(self.kernel, args[1]), "warning", "/hooks lists them.")

    async def ask_untrusted(self) -> None:
        """At start-up: each project hook waiting for trust, one dialog after the other."""
        for source in list(self.kernel.untrusted):
            await self.ask(source)

    async def ask(self, source: HookSource) -> None:
        """Show `source` and ask; trust and load it on `y`."""
        from zizou.ui.screens.hook_trust import HookTrustScreen

        changed = await asyncio.to_thread(changed_since_trusted, source)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        self.host.post_message(ShowScreen(HookTrustScreen(source, changed, self.typing), answered))
        if not await answer:
            await self.say(
                f"{source.name} stays untrusted for this session: it does not run.",
                fix=f"/hooks trust {source.name} asks again.",
            )
            return
        session = self.kernel  # the session now: /clear may have replaced it meanwhile
        try:
            problem = await asyncio.to_thread(session.trust_hook, source)
        except (ZizouError, OSError, ValueError) as exc:  # the trust file could not be saved
            await self.say(f"{source.name} was not trusted: {exc}", "error")
            return
        self.host.post_message(SessionChanged())
        if problem:
            await self.say(f"Trusted, but: {problem}", "warning")
            return
        digest = source.sha256[:HASH_CHARS]
        await self.say(
            f"Trusted {source.name} (sha256 {digest}): it runs from the next step.", "success"
        )


def changed_since_trusted(source: HookSource) -> bool:
    """Whether the user trusted another version of this file (else it is new to them)."""
    from zizou.hooks.sources import TrustStore
    from zizou.user_dirs import user_config_dir

    return TrustStore(user_config_dir()).status(source) == "changed"


def hooks_listing(session: Session) -> str:
    """What `/hooks` says: the loaded hooks (and why one is disabled), those not loaded and
    why, and the project hooks waiting for the user's trust."""
    hooks = session.hooks
    loaded = hooks.hooks if hooks is not None else []
    waiting = {source.name for source in session.untrusted}
    skipped = {
        name: why
        for name, why in (hooks.skipped.items() if hooks is not None else ())
        if name not in waiting
    }
    lines = [f"Hooks loaded ({len(loaded)}):"]
    for hook in loaded:
        source = hook.source
        line = f"  {source.name} · {source.kind} · {source.origin}"
        lines.append(line + (f" · disabled: {hook.disabled}" if hook.disabled else ""))
    if skipped:
        lines.append(f"Not loaded ({len(skipped)}):")
        lines += [f"  {name}: {why}" for name, why in skipped.items()]
    if session.untrusted:
        lines.append(f"Waiting for your trust ({len(session.untrusted)}), not run:")
        for source in session.untrusted:
            why = hooks.skipped.get(source.name, "not trusted") if hooks else "not trusted"
            digest = source.sha256[:HASH_CHARS]
            lines.append(f"  {source.name} · {why} · sha256 {digest}")
    return "\n".join(lines)


def find_untrusted(session: Session, name: str) -> HookSource | None:
    """The waiting hook named `name`: its full name, or its file name when only one has it."""
    exact = [s for s in session.untrusted if s.name == name]
    if exact:
        return exact[0]
    by_file = [s for s in session.untrusted if s.name.rsplit("/", 1)[-1] == name]
    return by_file[0] if len(by_file) == 1 else None


def not_waiting(session: Session, name: str) -> str:
    """Why `/hooks trust NAME` has nothing to ask about."""
    hooks = session.hooks
    loaded = [h.source.name for h in hooks.hooks] if hooks is not None else []
    if any(n == name or n.rsplit("/", 1)[-1] == name for n in loaded):
        return f"{name} is loaded already: it runs before every step."
    if hooks is not None and name in hooks.skipped:
        return f"{name} is not loaded: {hooks.skipped[name]}."
    names = ", ".join(s.name for s in session.untrusted)
    waiting = f" Waiting for your trust: {names}." if names else " No hook waits for your trust."
    return f"No hook named {name!r} waits for your trust.{waiting}"


def untrusted_warning(session: Session, warning: str) -> bool:
    """Whether `warning` is the session's note that a waiting hook was not run: the app asks
    about that hook instead."""
    return any(warning.startswith(f"the hook {s.name} was not run") for s in session.untrusted)


__all__ = [
    "HookCommands",
    "changed_since_trusted",
    "find_untrusted",
    "hooks_listing",
    "not_waiting",
    "untrusted_warning",
]
