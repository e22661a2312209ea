"""Which file names hold secrets (env files, private keys): never read by default.

One list for every place that must agree: the permission check on reads, grep's excludes, and
the repo map's file list.
"""

from __future__ import annotations

import re
from fnmatch import translate

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


# Each list as one pattern: the repo map asks about every file of a project, and most names are
# ruled out by a single match rather than a glob at a time.
_SECRET = re.compile("|".join(map(translate, SECRET_NAME_GLOBS)))
_EXCEPTION = re.compile("|".join(map(translate, SECRET_NAME_EXCEPTIONS)))


def is_secret_name(name: str) -> bool:
    """True for a file name whose contents are never read by default (case-insensitive)."""
    folded = name.casefold()
    return _SECRET.match(folded) is not None and _EXCEPTION.match(folded) is None


__all__ = ["SECRET_NAME_EXCEPTIONS", "SECRET_NAME_GLOBS", "is_secret_name"]
