"""Keep secrets (header values, environment values, auth objects) out of reprs and messages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_HIDDEN = "***"
_SECRET_KEYS = {"headers", "env", "auth"}


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
