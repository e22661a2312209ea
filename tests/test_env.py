from __future__ import annotations

import pytest

from zizou.env import is_secret_variable, scrubbed_env


@pytest.mark.parametrize(
    "name",
    [
        "OPENAI_API_KEY",
        "anthropic_api_key",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "NPM_TOKEN",
        "SLACK_SECRET",
        "PGPASSWORD",
        "MYSQL_PASSWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "DOCKER_AUTH_CONFIG",
        "SSH_AUTH_SOCK",
        "GITHUB_PAT",
        "AZURE_DEVOPS_EXT_PAT",
        "SMTP_PASS",
        "MYSQL_PWD",
        "PRIVATE_KEY",
        "HF_TOKEN",
    ],
)
def test_secret_names_are_removed(name: str) -> None:
    assert is_secret_variable(name)


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TERM",
        "USER",
        "SHELL",
        "PWD",
        "OLDPWD",
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "EDITOR",
        "TMPDIR",
        "PATHEXT",
        "COMPASS_HOME",
    ],
)
def test_ordinary_names_are_kept(name: str) -> None:
    assert not is_secret_variable(name, "/some/value")


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("postgres://app:hunter2@db:5432/app", True),
        ("https://user:ghp_abc@github.com/org/repo.git", True),
        ("https://github.com/org/repo.git", False),
        ("postgres://db:5432/app", False),
        ("user@example.com", False),
    ],
)
def test_urls_with_passwords_are_removed_whatever_the_name(value: str, secret: bool) -> None:
    assert is_secret_variable("DATABASE_URL", value) is secret


def test_scrubbed_env_copies_and_filters() -> None:
    environ = {"PATH": "/bin", "HOME": "/home/u", "OPENAI_API_KEY": "sk-1", "LANG": "C.UTF-8"}
    assert scrubbed_env(environ) == {"PATH": "/bin", "HOME": "/home/u", "LANG": "C.UTF-8"}
    assert environ["OPENAI_API_KEY"] == "sk-1"
