"""Which file names hold secrets (env files, private keys): never read by default.

One list for every place that must agree: the permission check on reads, grep's excludes, and
the repo map's file list.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

SECRET_NAME_GLOBS: tuple[str, ...] = (
    ".env*",
    "*.pem",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
)
# Harmless names the globs would otherwise catch: templates and public keys.
SECRET_NAME_EXCEPTIONS: tuple[str, ...] = (
    ".env.example",
    ".env.sample",
    ".env.template",
    "id_*.pub",
)


def is_secret_name(name: str) -> bool:
    """True for a file name whose contents are never read by default (case-insensitive)."""
    folded = name.casefold()
    if any(fnmatchcase(folded, pattern) for pattern in SECRET_NAME_EXCEPTIONS):
        return False
    return any(fnmatchcase(folded, pattern) for pattern in SECRET_NAME_GLOBS)


__all__ = ["SECRET_NAME_EXCEPTIONS", "SECRET_NAME_GLOBS", "is_secret_name"]
