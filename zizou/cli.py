"""The command line: `zizou [PROMPT]` and `zizou -p PROMPT`. Kept at the edge: it parses flags,
resolves them into the run's options (`zizou.config.options`), and hands over to a front end."""

from __future__ import annotations

import difflib
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from zizou import __version__
from zizou.errors import UsageError, ZizouError
from zizou.start import PICK_SESSION, begin, finish, flags_from, open_app, tell

EPILOG = """\b
Commands:
  zizou sessions list                       the sessions of this project
  zizou undo [--list] [--force]             put back the files the last turn changed
  zizou keys list | set | remove PROVIDER   API keys: where each comes from, save, delete
  zizou map [--tokens N] [--focus PATH]     print the repo map the model would get
  zizou models [PROVIDER]                   the model ids zizou can be given
  zizou config [OPTIONS]                    the options in effect, and where each came from
  zizou hooks list | trust PATH | check     project hooks: trust and check them
  zizou mcp add | list | get | remove       MCP servers (`zizou mcp --help`)
  zizou run DECK [--input JSON|STRING]      run a deck (a sub-agent written as a file)
  zizou decks list | check | new NAME       the decks: list them, find what is wrong, start one
  zizou trace [RUNID]                       a deck run's trace: its actions, calls and outcome
  zizou acp                                 serve an editor over the Agent Client Protocol
A setting comes from the first of: a flag, the environment ($ZIZOU_MODEL),
the project (rules you saved for it), config.toml, the default; `zizou config`
shows each value in effect and where it came from.
Exit codes: 0 done, 1 provider or runtime failure, 2 usage or configuration
error, 3 stopped at the step cap, 4 stopped at the spending cap (--max-budget-usd,
--max-tokens). --output-format json prints one result on every exit.
Examples:
  zizou -p "add a --verbose flag to cli.py" --model openai/gpt-4o
  zizou -p - --output-format json --allow 'run_bash:pytest' < task.txt
"""

F = TypeVar("F", bound=Callable[..., Any])

# The flags that shape a run, shared by `zizou` and `zizou config`. A flag not given is None
# (or empty): the defaults live in `zizou.config.options`, and `zizou config` shows them.
RUN_FLAGS = (
    click.option(
        "-m",
        "--model",
        help="Model id as litellm names it (else $ZIZOU_MODEL, `model` in config.toml, or the "
        "default).",
    ),
    click.option("--api-base", help="Base URL of an OpenAI-compatible or self-hosted endpoint."),
    click.option(
        "--api-key",
        metavar="KEY",
        help="Key for the model's provider. Other users can see it in the process list: "
        "prefer the provider's env var or `zizou keys set PROVIDER`.",
    ),
    click.option(
        "--max-steps",
        type=click.IntRange(1, 500),
        help="Step cap per turn (else `max_steps` in config.toml, or the default).",
    ),
    click.option(
        "--max-budget-usd",
        type=click.FloatRange(min=0, min_open=True, max=1_000_000),
        metavar="N",
        help="Dollars this run may spend on model calls (models litellm prices); it stops "
        "before the call that would pass it, exit code 4 (else `max_budget_usd` in config.toml).",
    ),
    click.option(
        "--max-tokens",
        type=click.IntRange(1_000, 10_000_000_000),
        metavar="N",
        help="Tokens (input and output) this run may spend, for models without a known price; "
        "exit code 4 past it (else `max_tokens` in config.toml).",
    ),
    click.option(
        "--allow",
        "allow",
        multiple=True,
        metavar="RULE",
        help="Approve a tool or 'run_bash:PREFIX' (repeatable).",
    ),
    click.option(
        "--yes", is_flag=True, help="Approve every request except writes to protected paths."
    ),
    click.option(
        "--sandbox",
        type=click.Choice(["auto", "required", "off"]),
        help="Where the model's commands run: auto (in the OS sandbox where there is one), "
        "required (refuse to run them without one), off (unsandboxed); else `sandbox` in "
        "config.toml.",
    ),
    click.option(
        "--permission-mode",
        type=click.Choice(["ask", "accept-edits", "auto"]),
        default=None,
        help="How much asks: ask (edits and commands), accept-edits (commands; the default), "
        "auto (only what the sandbox does not hold).",
    ),
    click.option(
        "--network",
        "sandbox_network",
        is_flag=True,
        default=None,
        help="Let sandboxed commands use the network for this run.",
    ),
    click.option(
        "-C",
        "--cwd",
        type=click.Path(file_okay=False, path_type=Path),
        help="Project directory (default: current).",
    ),
    click.option(
        "-c", "--continue", "continue_last", is_flag=True, help="Continue the last session."
    ),
    click.option(
        "-r",
        "--resume",
        metavar="[ID]",
        is_flag=False,
        flag_value=PICK_SESSION,
        help="Resume a session (see `zizou sessions list`); without ID, the app lists this "
        "project's sessions to pick from.",
    ),
    click.option(
        "--history-window",
        type=click.IntRange(0, 10_000),
        metavar="N",
        help="Send only the last N earlier user turns, whole, with each request (the session "
        "keeps everything; else `history_window` in config.toml, or all).",
    ),
    click.option(
        "--protocol",
        type=click.Choice(["auto", "tools", "json"]),
        help="How the model calls tools: native tool calls, or a JSON reply protocol for models "
        "without them (auto: by what litellm knows of the model).",
    ),
    click.option(
        "--profile",
        type=click.Choice(["stateful"]),
        help="stateful: each request sends the prompt, the task state and the last user turn, "
        "not the whole transcript (--history-window 1).",
    ),
    click.option(
        "--mode",
        type=click.Choice(["build", "plan"]),
        help="Start in this mode: plan offers read-only tools and refuses writes, even with "
        "--yes (else the resumed session's mode, or build).",
    ),
    click.option(
        "--trust-hooks",
        is_flag=True,
        default=False,
        help="Trust the project's Python hooks (.zizou/hooks/*.py) as they are now, and run them; "
        "an edited hook asks again.",
    ),
    click.option(
        "--mcp-config",
        "mcp_config",
        multiple=True,
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="FILE",
        help="MCP servers from FILE (the .mcp.json format), started for this run (repeatable).",
    ),
    click.option(
        "--no-debug-log",
        "debug_log",
        flag_value=False,
        default=None,
        help="Do not write zizou-debug.log for this run.",
    ),
)


def run_flags(command: F) -> F:
    """Decorate a click command with RUN_FLAGS, in the order listed."""
    for option in reversed(RUN_FLAGS):
        command = option(command)
    return command


@click.command(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("prompt_arg", metavar="[PROMPT]", required=False)
@click.option(
    "-p", "--print", "prompt", metavar="PROMPT", help="Run one turn headless ('-' reads stdin)."
)
@run_flags
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "stream-json"]),
    help="Headless output: text (default), json or stream-json.",
)
@click.option(
    "--open",
    "open_files",
    multiple=True,
    metavar="PATH[:SPEC]",
    help="Open a file in the workspace from the first step: PATH, PATH:10-40 (lines) or "
    "PATH#/REGEX/ (repeatable).",
)
@click.option(
    "--state",
    "state_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Headless: load the task state from FILE (JSON) at the start and write it back at the "
    "end.",
)
@click.option("--setup", is_flag=True, help="Open the key wizard first (the full-screen app).")
@click.option(
    "--reset",
    is_flag=True,
    help="Replace the key of the model's provider: the wizard asks for a new one and keeps the "
    "old one until the new one checks out.",
)
@click.version_option(__version__, "--version", prog_name="zizou")
def cli(
    prompt_arg: str | None,
    prompt: str | None,
    output_format: str | None,
    open_files: tuple[str, ...],
    state_file: Path | None,
    setup: bool,
    reset: bool,
    **run: Any,
) -> int:
    """zizou: a coding agent in your terminal.

    With -p it runs one turn headless and prints the answer; without it, the full-screen app.
    """
    if prompt is None:
        check_app_start(prompt_arg)
        if run["resume"] == PICK_SESSION:  # as `/sessions` does, before anything else
            if prompt_arg is not None:
                raise UsageError("-r without an ID opens the session list: give the prompt after")
            run["resume"], prompt_arg = None, "/sessions"
        if state_file is not None:
            raise UsageError("--state is for headless runs (-p); the app keeps the state")
        mode = "reset" if reset else "setup" if setup else None
        return open_app(run, prompt=prompt_arg, setup=mode, open_files=open_files)
    if setup or reset:
        raise UsageError("--setup and --reset open the key wizard of the full-screen app: drop -p")
    if prompt_arg is not None:
        raise UsageError("give the prompt once: either `zizou -p PROMPT` or `zizou PROMPT`")
    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise UsageError("the prompt is empty: pass text to -p, or pipe it in with `-p -`")
    from zizou.config.options import resolve_options
    from zizou.headless import run_headless

    flags = flags_from(
        run, prompt=text, output_format=output_format, open_files=open_files, state_file=state_file
    )
    options = resolve_options(flags)
    return run_headless(options)


# A first message shaped like a subcommand: one lowercase word, no spaces.
COMMAND_SHAPED = re.compile(r"[a-z][a-z0-9_-]{0,31}")
# Subcommands, imported only when used so the main path stays fast.
SUBCOMMANDS: dict[str, str] = {
    "sessions": "zizou.commands.sessions:sessions",
    "keys": "zizou.commands.keys:keys",
    "map": "zizou.commands.map:map_command",
    "models": "zizou.commands.models:models",
    "config": "zizou.commands.config:config_command",
    "hooks": "zizou.commands.hooks:hooks",
    "undo": "zizou.commands.undo:undo",
    "run": "zizou.commands.run:run_command",
    "decks": "zizou.commands.decks:decks",
    "trace": "zizou.commands.trace:trace",
    "mcp": "zizou.commands.mcp:mcp",
    "acp": "zizou.commands.acp:acp",
}


def check_app_start(first_message: str | None) -> None:
    """A UsageError instead of the full-screen app when a first message that is one bare word
    cannot be what was meant: a mistyped or missing subcommand, such as `zizou acp`."""
    if first_message is not None and COMMAND_SHAPED.fullmatch(first_message):
        close = difflib.get_close_matches(first_message, SUBCOMMANDS, n=1, cutoff=0.6)
        hint = f" (did you mean `zizou {close[0]}`?)" if close else ""
        raise UsageError(
            f"`{first_message}` is not a zizou command{hint}; `zizou --help` lists them. To "
            f"send it to the model, run `zizou` and type it, or `zizou -p {first_message}`"
        )


def _command_for(args: list[str]) -> click.Command:
    if args and args[0] in SUBCOMMANDS:
        import importlib

        module, _, attr = SUBCOMMANDS[args[0]].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command
    return cli


def main(argv: list[str] | None = None) -> None:
    started = time.monotonic()
    begin()
    args = list(sys.argv[1:] if argv is None else argv)
    command = _command_for(args)
    if command is not cli:
        args = args[1:]
    name = "zizou" if command is cli else f"zizou {command.name}"
    failed: BaseException | None = None
    try:
        code = command.main(args=args, prog_name=name, standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt) as exc:
        code, failed = 130, exc
    except click.ClickException as exc:
        exc.show()
        code, failed = 2, exc
    except ZizouError as exc:
        code, failed = tell(exc), exc
    except Exception as exc:  # a bug: its traceback follows, after the result scripts read
        _report_failure(command, args, exc, started)
        raise
    if failed is not None:
        _report_failure(command, args, failed, started)
    code = code if isinstance(code, int) else 0
    if argv is None:
        finish(code)
    sys.exit(code)


def _report_failure(command: click.Command, args: list[str], exc: BaseException, t0: float) -> None:
    """A `-p` run for json or stream-json that failed (a bad flag, a usage or configuration
    error) still ends with one result object on stdout."""
    if command is not cli or _result_format(args) == "text":
        return
    from zizou.headless import error_kind, write_error

    if isinstance(exc, click.exceptions.Abort | KeyboardInterrupt):
        kind, message = "interrupted", "interrupted"
    elif isinstance(exc, click.ClickException):
        kind, message = "usage", exc.format_message()
    else:
        kind, message = error_kind(exc), str(exc) or type(exc).__name__
    write_error(sys.stdout, kind, message, time.monotonic() - t0)


def _result_format(args: list[str]) -> str:
    """The --output-format of a `-p` run, as click reads `args` mistakes and all; else text."""
    try:
        ctx = cli.make_context(
            "zizou", list(args), resilient_parsing=True, ignore_unknown_options=True
        )
    except click.ClickException:
        return "text"
    flagged = any(a in ("-p", "--print") or a.startswith("--print=") for a in args)
    headless = ctx.params.get("prompt") is not None or flagged
    output_format = ctx.params.get("output_format")
    return output_format if headless and isinstance(output_format, str) else "text"
