"""Removes secrets from text before it is written anywhere a person or a commit might see it.

Two kinds of secret are removed: the exact values of the keys zizou loaded (they are known, so
nothing about their shape is assumed), and anything shaped like a credential: provider keys
(`sk-...`, `sk-ant-...`), AWS key ids, GitHub tokens, JWTs, private-key PEM blocks, the values of
Authorization / x-api-key headers, and the `user:password@` part of URLs. Every pattern starts
with a literal, so a megabyte of tool output is scanned in milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from zizou.env import is_secret_variable
from zizou.known_secrets import loaded_secrets, remember_secret

MARKER = "[REDACTED]"


# A shorter "secret" (a test key `x`, `test`, `ollama`) would erase ordinary words and mask every
# `x` of a hex address; real keys are far longer, and none of these shapes is a credential.
MIN_SECRET_CHARS = 8
MIN_ENV_SECRET_CHARS = 8

# Each pattern starts with a literal, so `re` finds candidates with a fast substring search;
# the word-boundary check before a token happens in `_token_start` for the same reason.
_HEADER = re.compile(
    r"(?i)(authorization|api-key)"  # also proxy-authorization, x-api-key, x-goog-api-key
    r"(\"?'?[ \t]*[:=][ \t]*\"?'?)"  # `: `, `": "`, `=`, `': '`
    r"([^\"'\r\n,;}]+)"  # the value, up to the end of the line or of the quoted string
)
_URL_USERINFO = re.compile(r"://[^/@\s:]+:[^/@\s]+@")
_PEM = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=:,\-\s]*)"
)
_TOKENS = tuple(
    re.compile(pattern)
    for pattern in (
        r"sk-(?=[A-Za-z_\-]*[0-9])[A-Za-z0-9_\-]{20,}",  # OpenAI, Anthropic, OpenRouter
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe
        r"(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
        r"gh[pousr]_[A-Za-z0-9]{30,}",  # GitHub tokens
        r"github_pat_[A-Za-z0-9_]{22,}",  # GitHub fine-grained tokens
        r"glpat-[A-Za-z0-9_\-]{20,}",  # GitLab
        r"gsk_[A-Za-z0-9]{20,}",  # Groq
        r"AIza[0-9A-Za-z_\-]{35}",  # Google
        r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
        r"xox[abprs]-[A-Za-z0-9\-]{10,}",  # Slack
        r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",  # JWTs
    )
)


def _token_start(match: re.Match[str]) -> str:
    """The marker, unless the match starts inside a longer word (`task-...` is no key)."""
    before = match.string[match.start() - 1] if match.start() else " "
    return match.group(0) if before.isalnum() or before == "_" else MARKER


class Redactor:
    """`redact(text)` returns `text` with every known secret value and credential-shaped
    string replaced by `[REDACTED]`."""

    def __init__(
        self,
        secrets: Iterable[str | None] = (),
        source: Callable[[], Iterable[str | None]] | None = None,
    ) -> None:
        """`secrets` are removed from the start; `source`, when given, is asked again at each
        `refresh()` (the debug log refreshes at every user message), for keys loaded later."""
        self._secrets: list[str] = []
        self._source = source
        for secret in secrets:
            self.add(secret)
        self.refresh()

    def refresh(self) -> None:
        if self._source is not None:
            for secret in self._source():
                self.add(secret)

    def add(self, secret: str | None) -> None:
        """Also remove this exact value from now on (blank or very short values are ignored)."""
        value = (secret or "").strip()
        if len(value) >= MIN_SECRET_CHARS and value not in self._secrets:
            self._secrets.append(value)
            self._secrets.sort(key=len, reverse=True)  # a key containing another goes first

    @property
    def secret_count(self) -> int:
        return len(self._secrets)

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MARKER)
        text = _PEM.sub(MARKER, text)
        text = _HEADER.sub(lambda m: f"{m.group(1)}{m.group(2)}{MARKER}", text)
        text = _URL_USERINFO.sub(f"://{MARKER}@", text)
        for pattern in _TOKENS:
            text = pattern.sub(_token_start, text)
        return text


def env_secrets(environ: Mapping[str, str]) -> list[str]:
    """Values of the variables zizou keeps from commands (keys, tokens, passwords), long
    enough to be real secrets: they are redacted wherever they turn up."""
    return [
        value
        for name, value in environ.items()
        if len(value.strip()) >= MIN_ENV_SECRET_CHARS and is_secret_variable(name, value)
    ]


__all__ = ["MARKER", "Redactor", "env_secrets", "loaded_secrets", "remember_secret"]
