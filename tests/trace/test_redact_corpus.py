"""Redaction hits secrets and nothing else: a corpus of ordinary text passes through unchanged,
even with short "keys" loaded (a local server's `x`, `test`), and the secrets set among it do not.
"""

from __future__ import annotations

import pytest

from zizou.redact import MARKER, Redactor

SHORT_KEYS = ["x", "0x", "sk", "test", "abc1234", "ollama"]  # too short to be keys

ORDINARY = {
    "traceback": (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/asyncio/base_events.py", line 653, in run_until_complete\n'
        "    return future.result()\n"
        '  File "/work/app/client.py", line 41, in fetch\n'
        "    raise ConnectionError(f'cannot reach {host}')\n"
        "KeyError: 'api_key'\n"
    ),
    "hex addresses": (
        "Cannot connect to host api.openai.com:443 ssl:<ssl.SSLContext object at "
        "0x7ffbe2f20a70> [Name or service not known]; <function main at 0x10b3c1e50>"
    ),
    "hashes": (
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\n"
        "sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
        "md5 d41d8cd98f00b204e9800998ecf8427e  /tmp/x.tar.gz\n"
    ),
    "uuids": (
        "request 123e4567-e89b-12d3-a456-426614174000 and 7c9e6679-7425-40de-944b-e07fc1f90ae7"
    ),
    "base64 that is no key": (
        "SGVsbG8sIFdvcmxkIQ== and data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAf"
        "FcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
    ),
    "urls without credentials": (
        "https://github.com/owner/repo/blob/main/x.py#L10 http://localhost:8080/v1/models "
        "https://user@example.com/path?token_type=bearer&next=/home"
    ),
    "prose and code": (
        "Set the Authorization header to your token; the x-api-key header is optional.\n"
        "def test_xyz(tmp_path):\n    assert 0x10 == 16  # hex, max, index, exit 0\n"
        "task-force sk-learn risk-0123456789abcdefghij extra exit\n"
    ),
    "versions and paths": "litellm 1.106.2, Python 3.11.7 on x86_64; ~/.config/zizou/keys.toml",
}

SECRETS = {
    "openai key": "sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56",
    "github token": "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "a loaded key of no known shape": "canary-value-0123456789",
}


@pytest.mark.parametrize("name", sorted(ORDINARY))
def test_ordinary_text_passes_through_unchanged(name: str) -> None:
    text = ORDINARY[name]
    assert Redactor(SHORT_KEYS).redact(text) == text


@pytest.mark.parametrize("name", sorted(SECRETS))
def test_secrets_in_the_same_corpus_are_removed(name: str) -> None:
    secret = SECRETS[name]
    corpus = "\n".join(ORDINARY.values())
    redactor = Redactor([*SHORT_KEYS, SECRETS["a loaded key of no known shape"]])
    text = f"{corpus}\nkey={secret}\n{corpus}"
    assert redactor.redact(text) == f"{corpus}\nkey={MARKER}\n{corpus}"
