"""Sealing a stored document at rest: Fernet (AES-128-CBC with HMAC-SHA256, from the ``cryptography``
package), with a Fernet key or a passphrase stretched into one.

A sealed document cannot be read, nor changed unseen, without its key: opening it with another key (or
after it was altered) fails.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.fernet import Fernet

__all__ = ["KEY_HINT", "Sealer", "check_key", "sealer_from"]

KEY_HINT = ("a Fernet key (make one with: python -c \"from cryptography.fernet import Fernet; "
            "print(Fernet.generate_key().decode())\") or a passphrase of at least 16 characters")

# A passphrase is stretched with PBKDF2-HMAC-SHA256 and this fixed salt, so every process with the
# passphrase derives the same key (the salt names tokens for history: token documents came first).
_SALT = b"mcp-litellm stored OAuth tokens"


class Sealer:
    """Encrypts and decrypts a document's text with one key; ``source`` says where the key came from (for
    messages: ``"MCP_LITELLM_TOKEN_KEY"``), never the key itself."""

    def __init__(self, fernet: Fernet, source: str) -> None:
        self._fernet = fernet
        self.source = source

    @classmethod
    def from_key(cls, key: str, source: str) -> Sealer:
        """The sealer for ``key`` (a Fernet key or a passphrase); ``ValueError`` saying what a key must be
        (never quoting it) when it cannot be used."""
        return cls(_fernet_for(key), source)

    def __repr__(self) -> str:
        return f"Sealer(key from {self.source})"

    def seal(self, text: str) -> str:
        """``text`` encrypted, as ASCII."""
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str | None:
        """The text ``sealed`` holds, or ``None`` when it was sealed with another key or altered."""
        from cryptography.fernet import InvalidToken

        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, ValueError):
            return None


def sealer_from(key: str | None, source: str, env: str, refuse: Callable[[str], Exception]) -> Sealer | None:
    """The sealer for ``key`` (given as ``source``), else for the ``env`` variable; ``None`` when neither is set.
    A key that cannot be used raises ``refuse(why)`` (the caller's error, which says where the key came from)."""
    if key is None:
        key, source = os.environ.get(env) or None, env
    if key is None:
        return None
    try:
        return Sealer.from_key(key, source)
    except ValueError as exc:
        raise refuse(f"in {source} cannot be used: {exc}") from None


def check_key(key: str) -> None:
    """Raise ``ValueError`` (saying what a key must be, never quoting it) for a key that cannot be used."""
    _fernet_for(key)


@functools.lru_cache(maxsize=8)
def _fernet_for(key: str) -> Fernet:
    try:
        from cryptography.fernet import Fernet
    except ImportError:
        raise ValueError("encrypting stored documents needs the cryptography package: "
                         "pip install 'mcp-litellm[encryption]'") from None
    raw = key.strip().encode("utf-8")
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32 and len(raw) == 44:
            return Fernet(raw)
    except ValueError:
        pass
    if len(key) < 16:
        raise ValueError(f"the key is too short: give {KEY_HINT}")
    derived = hashlib.pbkdf2_hmac("sha256", key.encode("utf-8"), _SALT, 200_000)
    return Fernet(base64.urlsafe_b64encode(derived))
