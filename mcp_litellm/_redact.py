"""Keep secrets (header values, environment values, auth objects) out of reprs and messages."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

_HIDDEN = "***"
_SECRET_KEYS = {"headers", "env", "auth"}
_MIN_SECRET = 6
"""Shorter values (``"1"``, ``"debug"``...) are not masked in free text: they would mangle it."""


def redact_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a transport config safe to show: header/env values and auth objects are masked."""
    shown: dict[str, Any] = {}
    for key, value in config.items():
        if key in _SECRET_KEYS and isinstance(value, Mapping):
            shown[key] = {k: _HIDDEN for k in value}
        elif (key in _SECRET_KEYS and value is not None) or key == "server":
            shown[key] = f"<{type(value).__name__}>"
        else:
            shown[key] = value
    return shown


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value (say, a server's ``env`` values) replaced by ``***``."""
    for secret in secrets:
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, _HIDDEN)
    return text
