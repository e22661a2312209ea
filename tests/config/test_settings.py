from __future__ import annotations

from pathlib import Path

import pytest

from zizou.config.settings import Settings, load_settings
from zizou.errors import UsageError


def test_a_missing_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "config.toml") == Settings()


def test_values_are_read_and_validated(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('model = "anthropic/claude"\ndebug_log = false\n[retry]\nbase_delay_s = 0.01\n')
    settings = load_settings(path)
    assert settings.model == "anthropic/claude" and settings.debug_log is False
    assert settings.retry.base_delay_s == 0.01 and settings.retry.max_attempts == 5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("model = [", "cannot read"),
        ("[retry]\nmax_attempts = 0\n", "retry.max_attempts"),
        ("colour = 1\n", "colour"),
    ],
)
def test_bad_files_name_the_problem(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=expected) as info:
        load_settings(path)
    assert str(path) in str(info.value)
