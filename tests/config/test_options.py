"""How a run's options are resolved: flag > environment > project > user config > default, for
every setting, from real files in a scratch config dir and project."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from zizou.config.options import Flags, RunOptions, resolve_options
from zizou.config.project_rules import save_prefix
from zizou.errors import UsageError


@pytest.fixture
def home(zizou_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("ZIZOU_MODEL", raising=False)
    return zizou_home


def configure(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


def resolved(project: Path, env: dict[str, str] | None = None, **flags: object) -> RunOptions:
    return resolve_options(Flags.model_validate({"cwd": project, **flags}), environ=env or {})


@pytest.mark.parametrize(
    ("flag", "env", "config", "model", "origin"),
    [
        ("a/flag", "b/env", "c/config", "a/flag", "flag"),
        (None, "b/env", "c/config", "b/env", "env"),
        (None, "", "c/config", "c/config", "user config"),  # an empty variable is not set
        (None, None, "c/config", "c/config", "user config"),
        (None, None, None, "openai/gpt-4o", "default"),
        ("a/flag", None, None, "a/flag", "flag"),
    ],
)
def test_the_model_comes_from_the_flag_then_the_env_then_config_toml(
    project: Path,
    home: Path,
    flag: str | None,
    env: str | None,
    config: str | None,
    model: str,
    origin: str,
) -> None:
    if config is not None:
        configure(home, f'model = "{config}"\n')
    environ = {"ZIZOU_MODEL": env} if env is not None else {}
    options = resolved(project, environ, model=flag)
    assert (options.model, options.origins["model"]) == (model, origin)


@pytest.mark.parametrize(
    ("flags", "config", "expected"),
    [
        ({"max_steps": 7}, "max_steps = 3\n", (7, "flag")),
        ({}, "max_steps = 3\n", (3, "user config")),
        ({}, "", (15, "default")),
    ],
)
def test_max_steps_comes_from_the_flag_then_config_toml(
    project: Path, home: Path, flags: dict[str, object], config: str, expected: tuple[int, str]
) -> None:
    configure(home, config)
    options = resolved(project, **flags)
    assert (options.max_steps, options.origins["max_steps"]) == expected


@pytest.mark.parametrize(
    ("flags", "config", "expected"),
    [
        ({"debug_log": False}, "debug_log = true\n", (False, "flag")),
        ({}, "debug_log = false\n", (False, "user config")),
        ({}, "", (True, "default")),
    ],
)
def test_the_debug_log_is_on_unless_a_flag_or_config_toml_turns_it_off(
    project: Path, home: Path, flags: dict[str, object], config: str, expected: tuple[bool, str]
) -> None:
    configure(home, config)
    options = resolved(project, **flags)
    assert (options.debug_log, options.origins["debug_log"]) == expected


@pytest.mark.parametrize(
    ("flags", "config", "mode", "network"),
    [
        ({"sandbox": "off"}, 'sandbox = "auto"\nsandbox_network = true\n', "off", True),
        ({"sandbox": "off", "sandbox_network": True}, "", "off", True),
        ({}, 'sandbox = "off"\n', "off", False),
        ({}, "", "auto", False),
    ],
)
def test_the_sandbox_mode_and_network_come_from_flags_then_config_toml(
    project: Path,
    home: Path,
    flags: dict[str, object],
    config: str,
    mode: str,
    network: bool,
) -> None:
    configure(home, config)
    options = resolved(project, **flags)
    assert (options.sandbox, options.sandbox_network) == (mode, network)
    assert options.sandbox_status is not None and options.sandbox_status.mode == mode
    assert options.rules.sandbox == options.sandbox_status.state


def test_retry_and_timeouts_come_from_config_toml(project: Path, home: Path) -> None:
    configure(home, "[retry]\nmax_attempts = 2\n")
    options = resolved(project)
    assert options.retry.max_attempts == 2 and options.origins["retry"] == "user config"
    assert options.timeouts.idle_s == 90 and options.origins["timeouts"] == "default"


def test_the_project_adds_its_saved_rules_after_the_flags(project: Path, home: Path) -> None:
    save_prefix(project, "wc")
    save_prefix(project, "echo")
    options = resolved(project, allow=("run_bash:echo", "read_file"), sandbox="off")
    assert options.rules.bash_prefixes == ("echo", "wc")
    assert options.rules.flag_prefixes == ("echo",)
    assert options.rules.allowed_tools == frozenset({"read_file"})
    assert options.origins["allow"] == "flag" and options.origins["saved rules"] == "project"


def test_a_rules_file_the_repository_ships_approves_nothing(project: Path, home: Path) -> None:
    (project / ".zizou").mkdir()
    data = {"version": 2, "projects": {str(project): {"bash_prefixes": ["touch"]}}}
    (project / ".zizou" / "permissions.json").write_text(json.dumps(data))
    options = resolved(project)
    assert options.rules.bash_prefixes == ()
    assert "saved rules" not in options.origins
    assert any("is ignored" in warning for warning in options.warnings)


def test_continue_from_a_subdirectory_finds_the_project(project: Path, home: Path) -> None:
    (project / ".zizou" / "sessions").mkdir(parents=True)  # where the project's sessions live
    save_prefix(project, "wc")
    (project / "src" / "deep").mkdir(parents=True)
    options = resolved(project / "src" / "deep", continue_last=True)
    assert options.root == project.resolve() and options.session.continue_last
    assert options.rules.bash_prefixes == ("wc",)  # the project's rules, not the subdir's
    fresh = resolved(project / "src" / "deep")
    assert fresh.root == (project / "src" / "deep").resolve()


def test_flag_only_settings_default_here(project: Path, home: Path) -> None:
    options = resolved(project)
    assert options.root == project.resolve() and options.origins["root"] == "flag"
    assert options.output_format == "text" and options.prompt is None and options.setup is None
    assert options.api_base is None and options.api_key is None
    given = resolved(project, output_format="json", prompt="hi", api_base="http://x/v1")
    assert (given.output_format, given.prompt, given.api_base) == ("json", "hi", "http://x/v1")
    assert given.origins["output_format"] == "flag"


def test_the_api_key_is_never_printed(project: Path, home: Path) -> None:
    options = resolved(project, api_key="sk-secret-flag-value-1234")
    assert options.api_key_value == "sk-secret-flag-value-1234"
    assert "sk-secret" not in repr(options) and "sk-secret" not in str(options)
    assert "sk-secret" not in options.model_dump_json()


def test_options_are_frozen(project: Path, home: Path) -> None:
    options = resolved(project)
    with pytest.raises(ValidationError):
        options.max_steps = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("flags", "config", "expected"),
    [
        ({"allow": ("no_such_tool",)}, "", "no_such_tool"),
        ({}, "max_steps = 0\n", "max_steps"),
        ({}, 'sandbox = "sometimes"\n', "sandbox"),
    ],
)
def test_bad_values_are_usage_errors_that_name_them(
    project: Path, home: Path, flags: dict[str, object], config: str, expected: str
) -> None:
    configure(home, config)
    with pytest.raises(UsageError, match=expected):
        resolved(project, **flags)


def test_a_missing_project_directory_names_the_flag(tmp_path: Path, home: Path) -> None:
    with pytest.raises(UsageError, match="-C"):
        resolved(tmp_path / "nowhere")


def test_zizou_version_imports_no_option_machinery() -> None:
    code = (
        "import sys\nfrom zizou.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('pydantic', 'asyncio', 'zizou.config.options',"
        " 'zizou.commands.config', 'zizou.config.settings') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_spending_caps_come_from_the_flags_then_config_toml(project: Path, home: Path) -> None:
    configure(home, "max_budget_usd = 2.5\nmax_tokens = 50000\n")
    options = resolved(project)
    assert (options.max_budget_usd, options.max_tokens) == (2.5, 50_000)
    assert options.origins["max_budget_usd"] == "user config"
    flagged = resolved(project, max_budget_usd=0.5)
    assert (flagged.max_budget_usd, flagged.origins["max_budget_usd"]) == (0.5, "flag")
    assert resolved(project, max_tokens=2_000).max_tokens == 2_000
    configure(home, "")
    assert (resolved(project).max_budget_usd, resolved(project).max_tokens) == (None, None)


def test_the_guards_and_notifications_are_config_toml_sections(project: Path, home: Path) -> None:
    defaults = resolved(project)
    assert defaults.guards.max_repeated_calls == 3
    assert defaults.guards.max_compactions_per_turn == 2
    assert defaults.guards.max_model_calls_per_turn == 100
    assert (defaults.notify.bell, defaults.notify.desktop) == (True, "auto")
    configure(
        home,
        "[guards]\nmax_repeated_calls = 5\nmax_model_calls_per_turn = 40\n"
        '[notify]\nbell = false\ndesktop = "off"\nafter_s = 10\n',
    )
    options = resolved(project)
    assert (options.guards.max_repeated_calls, options.guards.max_compactions_per_turn) == (5, 2)
    assert options.guards.max_model_calls_per_turn == 40
    assert (options.notify.bell, options.notify.desktop, options.notify.after_s) == (
        False,
        "off",
        10,
    )
    configure(home, "[guards]\nmax_repeated_calls = 1\n")
    with pytest.raises(UsageError, match=r"guards\.max_repeated_calls"):
        resolved(project)
