"""The environment commands run with: the user's, minus anything that looks like a secret.

The model reads everything a command prints, so `env` or a stray `echo $OPENAI_API_KEY` must not
hand it the user's keys. Variables are dropped by name, and by value when the value is a URL with
a password in it (`postgres://user:pass@host`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
SECRET_PARTS = frozenset({"PAT", "PASS", "PWD", "PW"})
KEEP = frozenset({"PWD", "OLDPWD"})

_URL_WITH_PASSWORD = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]+:[^/@\s]+@", re.IGNORECASE)


def is_secret_variable(name: str, value: str = "") -> bool:
    """True when a variable must not reach a command the model runs."""
    upper = name.upper()
    if upper in KEEP:
        return False
    if any(word in upper for word in SECRET_WORDS):
        return True
    if SECRET_PARTS.intersection(upper.split("_")):
        return True
    return bool(_URL_WITH_PASSWORD.search(value))


def scrubbed_env(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of `environ` without secret-looking variables; PATH, HOME, LANG and the rest stay."""
    return {name: value for name, value in environ.items() if not is_secret_variable(name, value)}


__all__ = ["is_secret_variable", "scrubbed_env"]
