"""The command line: `zizou [PROMPT]` and `zizou -p PROMPT`. Kept at the edge: it parses flags,
builds a runtime, and hands over to a front end."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from zizou import __version__
from zizou.errors import UsageError, ZizouError

if TYPE_CHECKING:
    from zizou.config.settings import Settings
    from zizou.core.permissions import Rules
    from zizou.sandbox import SandboxMode, SandboxStatus

EPILOG = """\b
Commands:
  zizou sessions list                       the sessions of this project
  zizou keys list | set | remove PROVIDER   API keys: where each comes from, save, delete
  zizou map [--tokens N] [--focus PATH]     print the repo map the model would get
  zizou models [PROVIDER]                   the model ids zizou can be given
Exit codes: 0 done, 1 provider or runtime failure, 2 usage or configuration
error, 3 stopped at the step cap. --output-format json prints one result on every exit.
Examples:
  zizou -p "add a --verbose flag to cli.py" --model openai/gpt-4o
  zizou -p - --output-format json --allow 'run_bash:pytest' < task.txt
"""


@click.command(epilog=EPILOG, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("prompt_arg", metavar="[PROMPT]", required=False)
@click.option(
    "-p", "--print", "prompt", metavar="PROMPT", help="Run one turn headless ('-' reads stdin)."
)
@click.option(
    "-m", "--model", help="Model id as litellm names it (default $ZIZOU_MODEL or openai/gpt-4o)."
)
@click.option("--api-base", help="Base URL of an OpenAI-compatible or self-hosted endpoint.")
@click.option(
    "--api-key",
    metavar="KEY",
    help="Key for the model's provider. Other users can see it in the process list: prefer "
    "the provider's env var or `zizou keys set PROVIDER`.",
)
@click.option(
    "--output-format",
    type=click.Choice(["text", "json", "stream-json"]),
    default="text",
    show_default=True,
    help="Headless output.",
)
@click.option(
    "--max-steps",
    type=click.IntRange(1, 500),
    default=15,
    show_default=True,
    help="Step cap per turn.",
)
@click.option(
    "--allow",
    "allow",
    multiple=True,
    metavar="RULE",
    help="Approve a tool or 'run_bash:PREFIX' (repeatable).",
)
@click.option("--yes", is_flag=True, help="Approve every request except writes to protected paths.")
@click.option(
    "--sandbox",
    "sandbox_mode",
    type=click.Choice(["auto", "required", "off"]),
    help="Run the model's commands in the OS sandbox: auto (default, or `sandbox` in "
    "config.toml), required (refuse to run them without one), off.",
)
@click.option(
    "--network", is_flag=True, help="Let sandboxed commands use the network for this run."
)
@click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)
@click.option("-c", "--continue", "continue_last", is_flag=True, help="Continue the last session.")
@click.option("-r", "--resume", metavar="ID", help="Resume a session (see `zizou sessions list`).")
@click.option("--no-debug-log", is_flag=True, help="Do not write zizou-debug.log for this run.")
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
    model: str | None,
    api_base: str | None,
    api_key: str | None,
    output_format: str,
    max_steps: int,
    allow: tuple[str, ...],
    yes: bool,
    sandbox_mode: str | None,
    network: bool,
    cwd: Path | None,
    continue_last: bool,
    resume: str | None,
    no_debug_log: bool,
    setup: bool,
    reset: bool,
) -> int:
    """zizou: a coding agent in your terminal.

    With -p it runs one turn headless and prints the answer; without it, the full-screen app.
    """
    root = _project_root(cwd)
    if prompt is None:
        from zizou.ui.early_keys import keys_held

        with keys_held() as typed_ahead:  # from here, keys wait for the app as typed
            from zizou.config.settings import load_settings
            from zizou.ui.launch import TuiOptions, run_tui  # the TUI path alone imports Textual

            settings = load_settings()
            sandbox = _sandbox(sandbox_mode, network, settings)

            options = TuiOptions(
                root,
                model,
                api_base,
                api_key,
                max_steps,
                prompt_arg,
                resume=resume,
                continue_last=continue_last,
                debug_log=settings.debug_log and not no_debug_log,
                setup="reset" if reset else "setup" if setup else None,
                typed_ahead=typed_ahead,
                sandbox=sandbox,
            )
            return run_tui(options, _rules(allow, yes, sandbox))
    if setup or reset:
        raise UsageError("--setup and --reset open the key wizard of the full-screen app: drop -p")
    if prompt_arg is not None:
        raise UsageError("give the prompt once: either `zizou -p PROMPT` or `zizou PROMPT`")
    text = sys.stdin.read() if prompt == "-" else prompt
    if not text.strip():
        raise UsageError("the prompt is empty: pass text to -p, or pipe it in with `-p -`")
    from zizou.config.model_choice import open_model
    from zizou.config.settings import load_settings
    from zizou.headless import HeadlessApprover, HeadlessRun
    from zizou.runtime import SessionChoice, build_runtime

    settings = load_settings()
    sandbox = _sandbox(sandbox_mode, network, settings)
    if resume or continue_last:  # from a subdirectory, the project whose sessions these are
        from zizou.sessions import find_project

        root = find_project(root)
    rules = _rules(allow, yes, sandbox)
    llm = open_model(model, api_base, api_key, warn=lambda w: click.echo(f"zizou: {w}", err=True))
    session = SessionChoice(resume=resume, continue_last=continue_last)
    debug_log = settings.debug_log and not no_debug_log
    runtime = build_runtime(
        root,
        llm,
        HeadlessApprover(),
        rules,
        max_steps,
        session=session,
        debug_log=debug_log,
        sandbox=sandbox,
    )
    try:
        for warning in runtime.warnings:
            click.echo(f"zizou: {warning}", err=True)
        run = HeadlessRun(runtime, output_format)  # type: ignore[arg-type]
        return asyncio.run(run.run(text))
    finally:
        if runtime.debug_log is not None and runtime.debug_log.problem:
            click.echo(f"zizou: {runtime.debug_log.problem}", err=True)
        runtime.close()


def _rules(allow: tuple[str, ...], yes: bool, sandbox: SandboxStatus) -> Rules:
    from zizou.core.permissions import rules_from_allow
    from zizou.tools import BUILTIN_MODULES

    try:
        return rules_from_allow(allow, BUILTIN_MODULES, yes=yes, sandbox=sandbox.state)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _sandbox(flag: str | None, network: bool, settings: Settings) -> SandboxStatus:
    """The sandbox the model's commands run in: the flag, else config.toml, else auto."""
    import os

    from zizou.env import scrubbed_env
    from zizou.sandbox import detect

    mode = cast("SandboxMode", flag or settings.sandbox)
    allow_network = network or settings.sandbox_network
    status = detect(mode, network=allow_network, env=scrubbed_env(os.environ))
    if mode == "required" and status.state != "on":
        raise UsageError(
            f"sandbox is required, but commands cannot be sandboxed here: {status.problem}; "
            "install bubblewrap, or use --sandbox auto"
        )
    return status


def _project_root(cwd: Path | None) -> Path:
    root = (cwd or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory: pass an existing project with -C")
    return root


# Subcommands, imported only when used so the main path stays fast.
SUBCOMMANDS: dict[str, str] = {
    "sessions": "zizou.sessions.command:sessions",
    "keys": "zizou.config.keys_command:keys",
    "map": "zizou.repomap.command:map_command",
    "models": "zizou.providers.models_command:models",
}


def _command_for(args: list[str]) -> click.Command:
    if args and args[0] in SUBCOMMANDS:
        import importlib

        module, _, attr = SUBCOMMANDS[args[0]].partition(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command
    return cli


def main(argv: list[str] | None = None) -> None:
    from zizou.config.keys import capture_key_environment

    started = time.monotonic()
    capture_key_environment()  # before anything else: keys leave the environment (config.keys)
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
        click.echo(f"zizou: {exc}", err=True)
        code, failed = exc.exit_code, exc
    except Exception as exc:  # a bug: its traceback follows, after the result scripts read
        _report_failure(command, args, exc, started)
        raise
    if failed is not None:
        _report_failure(command, args, failed, started)
    sys.exit(code if isinstance(code, int) else 0)


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
