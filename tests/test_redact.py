"""The redactor: exact key values, headers, credential-shaped strings; and what it leaves alone."""

from __future__ import annotations

import pytest

from zizou.redact import MARKER, Redactor, env_secrets

R = MARKER
OPENAI = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4"
PROJECT = "sk-proj-" + "Ab12_Cd34-Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12Wx34"
ANTHROPIC = "sk-ant-api03-" + "Zy98Xw76Vu54Ts32Rq10Po98Nm76Lk54Ji32Hg10Fe98Dc76Ba54-AAAA"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITHUB_OAUTH = "gho_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GITHUB_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
    "-----END RSA PRIVATE KEY-----"
)
OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "-----END OPENSSH PRIVATE KEY-----"
)

CASES = [
    # (name, text, expected)
    ("openai key", f"key is {OPENAI} ok", f"key is {R} ok"),
    ("openai project key", f"OPENAI_API_KEY={PROJECT}", f"OPENAI_API_KEY={R}"),
    ("anthropic key", f'"{ANTHROPIC}"', f'"{R}"'),
    ("aws key id", f"aws_access_key_id = {AWS}", f"aws_access_key_id = {R}"),
    ("github token", f"token: {GITHUB}", f"token: {R}"),
    ("github oauth token", GITHUB_OAUTH, R),
    ("github fine-grained token", f"{GITHUB_PAT}\n", f"{R}\n"),
    ("jwt", f"session={JWT};", f"session={R};"),
    ("pem block", f"before\n{PEM}\nafter", f"before\n{R}\nafter"),
    ("openssh key", f"{OPENSSH}\n", f"{R}\n"),
    (
        "truncated pem block",
        "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nMIIEvQIB",
        R,
    ),
    ("authorization header", "Authorization: Bearer abc.def", f"Authorization: {R}"),
    ("authorization in json", '{"authorization": "Basic dXNlcjpw"}', f'{{"authorization": "{R}"}}'),
    ("x-api-key header", "x-api-key: 0123456789abcdef\nnext", f"x-api-key: {R}\nnext"),
    ("api-key in a python repr", "{'api-key': 'abc123'}", f"{{'api-key': '{R}'}}"),
    ("url password", "postgres://admin:hunter2@db:5432/app", f"postgres://{R}@db:5432/app"),
    (
        "git url token",
        "https://x-access-token:abc123@github.com/o/r",
        f"https://{R}@github.com/o/r",
    ),
]

LEFT_ALONE = [
    ("ordinary prose", "the task-force met; ask-me-anything; risk-free"),
    ("python code", "def sk_learn(x):\n    return headers['Accept']\n"),
    ("a word that starts like a key", "sk-learn-compatible-estimators-are-fine"),
    ("key-shaped text inside a word", "mask-0123456789abcdefghijKLMNOP"),
    ("url without a password", "https://user@example.com:8080/path?q=1"),
    ("url with a port", "http://localhost:8080/v1"),
    ("a certificate is public", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"),
    ("eyJ alone", "eyJhbGciOiJIUzI1NiJ9 is just base64"),
    ("an empty authorization line", "Authorization:\nnext line"),
]


@pytest.mark.parametrize(("name", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_credential_shapes_are_redacted(name: str, text: str, expected: str) -> None:
    assert Redactor().redact(text) == expected


@pytest.mark.parametrize(("name", "text"), LEFT_ALONE, ids=[c[0] for c in LEFT_ALONE])
def test_ordinary_text_is_left_alone(name: str, text: str) -> None:
    assert Redactor().redact(text) == text


def test_exact_key_values_are_removed_whatever_their_shape() -> None:
    redactor = Redactor(["canary-value-without-a-known-shape", None, "", "  "])
    text = "a canary-value-without-a-known-shape b\ncanary-value-without-a-known-shape"
    assert redactor.redact(text) == f"a {R} b\n{R}"
    assert redactor.secret_count == 1


def test_a_longer_secret_containing_a_shorter_one_goes_first() -> None:
    redactor = Redactor(["abcd1234", "abcd1234-and-more"])
    assert redactor.redact("x abcd1234-and-more y abcd1234") == f"x {R} y {R}"


def test_values_too_short_to_be_keys_are_ignored() -> None:
    assert Redactor(["abc"]).redact("abc abcdef") == "abc abcdef"


def test_a_source_is_asked_again_at_each_refresh() -> None:
    keys = ["first-secret-value"]
    redactor = Redactor(source=lambda: keys)
    keys.append("second-secret-value")
    assert "second-secret-value" in redactor.redact("second-secret-value")
    redactor.refresh()
    assert redactor.redact("first-secret-value second-secret-value") == f"{R} {R}"


def test_a_key_split_by_a_prefix_is_still_caught_by_its_exact_value() -> None:
    canary = "zz-canary-0123456789"
    assert Redactor([canary]).redact(f"echo {canary}|{canary}") == f"echo {R}|{R}"


def test_env_secrets_are_the_values_of_secret_variables() -> None:
    environ = {
        "OPENAI_API_KEY": "sk-env-value-123456",
        "GITHUB_TOKEN": "gh-token-value-0000",
        "AUTH": "1",  # too short to be a key
        "HOME": "/home/someone",
        "DATABASE_URL": "postgres://u:secretpass@h/db",
    }
    assert sorted(env_secrets(environ)) == sorted(
        ["sk-env-value-123456", "gh-token-value-0000", "postgres://u:secretpass@h/db"]
    )


def test_a_megabyte_of_tool_output_keeps_its_shape() -> None:
    line = "def f(x):  # task-force, ask-me, https://example.com/a\n"
    text = (line * (1_000_000 // len(line))) + f"{OPENAI}\n"
    out = Redactor(["canary-12345678"]).redact(text)
    assert out == text.replace(OPENAI, R)
