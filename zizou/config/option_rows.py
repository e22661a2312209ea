"""The options a run resolved, as rows a person reads: each setting, its value, and where it
came from (a flag, the environment, the project's saved rules, the user's config.toml, the
default). `zizou config` prints them, and so does the app's `/config`; keys are masked."""

from __future__ import annotations

from pydantic import BaseModel

from zizou.config.keys import mask_key, resolve_key, set_key_command
from zizou.config.keys_file import keys_file_path
from zizou.config.options import MODEL_VARIABLE, Origin, RunOptions
from zizou.config.project_rules import rules_path
from zizou.config.settings import settings_path
from zizou.providers.catalog import needs_key, provider_of

Row = tuple[str, str, str]  # setting, value, where it came from


def option_rows(options: RunOptions) -> list[Row]:
    """One row per setting, in the order a person reads them."""

    def row(name: str, value: object, key: str | None = None) -> Row:
        return name, _shown(value), origin_of(options, key or name)

    status = options.sandbox_status
    return [
        row("root", options.root),
        row("model", options.model),
        row("api_base", options.api_base),
        _key_row(options),
        row("max_steps", options.max_steps),
        row("max_budget_usd", options.max_budget_usd),
        row("max_tokens", options.max_tokens),
        row("sandbox", f"{options.sandbox} ({status.describe() if status else 'not checked'})"),
        row("sandbox_network", options.sandbox_network),
        row("debug_log", options.debug_log),
        row("history_window", options.history_window),
        row("protocol", options.protocol),
        row("mode", options.mode or "build (or the resumed session's)"),
        row("plan_reminder_steps", options.plan_reminder_steps),
        row("compact_at_percent", options.compact_at_percent),
        row("checkpoints_max_mb", options.checkpoints_max_mb),
        row("checkpoints_max_age_days", options.checkpoints_max_age_days),
        row("snapshot_commands", options.snapshot_commands),
        row("background_after_s", options.background_after_s),
        row("trust_hooks", options.trust_hooks),
        row("session", _session(options)),
        *_rule_rows(options),
        *_section_rows("retry", options.retry, origin_of(options, "retry")),
        *_section_rows("timeouts", options.timeouts, origin_of(options, "timeouts")),
        *_section_rows("guards", options.guards, origin_of(options, "guards")),
        *_section_rows("notify", options.notify, origin_of(options, "notify")),
        *_section_rows("mcp", options.mcp, origin_of(options, "mcp")),
        *(("mcp_config", str(path), "flag") for path in options.mcp_config),
    ]


def origin_of(options: RunOptions, name: str) -> str:
    """Where `name` came from, in words that say which file or variable."""
    origin: Origin = options.origins.get(name, "default")
    match origin:
        case "env":
            return f"env (${MODEL_VARIABLE})"
        case "user config":
            return f"user config ({settings_path()})"
        case "project":
            return f"project (saved in {rules_path()})"
        case _:
            return origin


def _key_row(options: RunOptions) -> Row:
    provider = provider_of(options.model)
    found = resolve_key(provider, flag=options.api_key_value)
    if found is None:
        if not needs_key(provider) or options.api_base:
            return "api_key", "-", "not needed"
        return "api_key", "-", f"none: run `{set_key_command(provider)}`"
    kind, _, variable = found.source.partition(":")
    source = {
        "flag": "flag",
        "env": f"env (${variable})",
        "keyring": "key store (OS keyring)",
        "file": f"key store ({keys_file_path()})",
    }.get(kind, found.source)
    return "api_key", mask_key(found.value), source


def _rule_rows(options: RunOptions) -> list[Row]:
    rules = options.rules
    flagged = [*sorted(rules.allowed_tools), *(f"run_bash:{p}" for p in rules.flag_prefixes)]
    saved = [f"run_bash:{p}" for p in rules.bash_prefixes if p not in rules.flag_prefixes]
    saved += list(rules.saved_tools)
    rows = [("allow", rule, "flag") for rule in flagged]
    rows += [("allow", rule, origin_of(options, "saved rules")) for rule in saved]
    rows = rows or [("allow", "-", "default")]
    rows.append(("yes", _shown(rules.yes), "flag" if rules.yes else "default"))
    return rows


def _session(options: RunOptions) -> str:
    if options.session.resume is not None:
        return f"resume {options.session.resume}"
    return "continue the last" if options.session.continue_last else "new"


def _section_rows(name: str, section: BaseModel, origin: str) -> list[Row]:
    return [(f"{name}.{key}", _shown(value), origin) for key, value in section.model_dump().items()]


def _shown(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


__all__ = ["Row", "option_rows", "origin_of"]
