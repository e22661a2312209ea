"""How a zizou process starts and ends, without click: the logs silenced and the keys captured
first, the full-screen app opened from the flags given, errors told in one line, and the exit
made without the interpreter's teardown.

`zizou` typed with no argument, the usual way to start the app, comes here straight from the
launcher: every flag is at its default, so there is nothing for click to parse, and the first
frame does not wait for click to be imported and the command line built (about a tenth of the
frame). Everything else goes through `zizou.cli`, which uses the same pieces.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from zizou.errors import UsageError, ZizouError

if TYPE_CHECKING:
    from zizou.config.options import Flags, RunOptions
    from zizou.ui.launch import AppStart

PICK_SESSION = ""  # `-r` given without an ID: the app opens the session list


def begin() -> None:
    """What every command does first: the collector runs less often (`zizou.collector`),
    zizou's logs go nowhere unless the debug log takes them (stderr is the app's, or a script's
    to parse), and the key variables leave the environment before anything else can read or
    pass them on."""
    from zizou.collector import collect_less_often
    from zizou.config.key_capture import capture_key_environment

    collect_less_often()
    logger = logging.getLogger("zizou")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
    capture_key_environment()


def flags_from(params: Mapping[str, Any], **more: Any) -> Flags:
    """The run flags a command was given (and `more`), as `resolve_options` reads them; a flag
    missing from `params` was not given."""
    from zizou.config.options import Flags

    if params.get("resume") == PICK_SESSION:
        raise UsageError("-r without an ID picks a session in the app; here name one: -r ID")
    return Flags(**params, **more)


def open_app(run: Mapping[str, Any], **more: Any) -> int:
    """Run the full-screen app from its run flags (`run`, by name; those not given may be left
    out) and `more` (prompt, setup, open_files) until the user quits; the exit code."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(
            "the app needs a terminal, and stdin or stdout is not one; without a terminal run "
            "`zizou -p PROMPT` (or `zizou -p -` to read the prompt from stdin)"
        )
    from zizou.ui.early_keys import keys_held

    with keys_held() as typed_ahead:  # from here, keys wait for the app as typed
        from zizou.ui.launch import run_tui  # the app's path alone imports Textual

        return run_tui(app_start(run, **more), typed_ahead=typed_ahead)


def app_start(run: Mapping[str, Any], **more: Any) -> AppStart:
    """The app's start from its flags: the project directory checked now, the rest of the
    options resolved once the first frame is up, unless a flag needs them judged first."""
    from zizou.config.project_dir import project_dir
    from zizou.ui.launch import AppStart

    def resolve() -> RunOptions:
        from zizou.config.options import resolve_options

        return resolve_options(flags_from(run, **more))

    resuming = run.get("resume") is not None or bool(run.get("continue_last"))
    return AppStart(
        project_dir(run.get("cwd")),
        resolve,
        check_first=bool(resuming or run.get("allow") or run.get("sandbox")),
        prompt=more.get("prompt"),
        setup=more.get("setup"),
        api_base=run.get("api_base"),
    )


def tell(exc: ZizouError) -> int:
    """Print a zizou error on stderr in one line; its exit code. It may quote a file of the
    project, so it is shown without terminal controls."""
    from zizou.terminal_text import strip_terminal_controls

    sys.stderr.write(strip_terminal_controls(f"zizou: {exc}") + "\n")
    return exc.exit_code


def plain_app() -> NoReturn:
    """`zizou` with no argument: the app with every flag at its default."""
    begin()
    try:
        code = open_app({})
    except KeyboardInterrupt:
        code = 130
    except ZizouError as exc:
        code = tell(exc)
    finish(code)


def finish(code: int) -> NoReturn:
    """End the process with `code`: at once when litellm is loaded (see `exit_now`), else as
    usual."""
    if "litellm" in sys.modules:
        exit_now(code)
    sys.exit(code)


def exit_now(code: int) -> NoReturn:
    """Exit once everything zizou writes is closed, without the interpreter's teardown: with
    litellm loaded, collecting its hundreds of megabytes of objects keeps a script (or the
    shell after the app) waiting a second or more for nothing. What a normal exit does first
    is still done: the other threads finish, exit handlers run, logs and output are flushed."""
    import atexit
    import os
    import threading

    shutdown = getattr(threading, "_shutdown", None)  # what the interpreter calls first
    if shutdown is not None:  # (executors are told to stop, then the threads are joined)
        shutdown()
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            code = code or 120  # as Python itself exits when it cannot flush
    os._exit(code)


__all__ = [
    "PICK_SESSION",
    "app_start",
    "begin",
    "exit_now",
    "finish",
    "flags_from",
    "open_app",
    "plain_app",
    "tell",
]
