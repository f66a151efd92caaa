"""Keep secrets (header values, environment values, auth objects, URL query keys) out of reprs and messages."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_HIDDEN = "***"
_SECRET_KEYS = {"headers", "env", "auth"}
_MIN_SECRET = 6
"""Shorter values (``"1"``, ``"debug"``...) are not masked in free text: they would mangle it."""

_SECRET_PARAM = re.compile(r"(key|token|secret|password|passwd|pwd|signature|sig|auth|credentials?)$", re.I)
"""Query parameter names whose values are secrets: api_key, apiKey, key, token, access_token, secret, ..."""
_QUERY_PAIR = re.compile(r"([?&;])([^=&;#?\s]+)=([^&;#\s'\"]*)")


def redact_url(text: str) -> str:
    """``text`` (a URL, or any text with URLs in it) with secret query values masked: ``?api_key=***``."""
    if "=" not in text:
        return text

    def mask(match: re.Match[str]) -> str:
        separator, name, value = match.groups()
        return f"{separator}{name}={_HIDDEN}" if value and _SECRET_PARAM.search(name) else match.group(0)

    return _QUERY_PAIR.sub(mask, text)


def redact_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a transport config safe to show: header/env values, auth objects and secret URL query
    values are masked."""
    shown: dict[str, Any] = {}
    for key, value in config.items():
        if key in _SECRET_KEYS and isinstance(value, Mapping):
            shown[key] = {k: _HIDDEN for k in value}
        elif (key in _SECRET_KEYS and value is not None) or key == "server":
            shown[key] = f"<{type(value).__name__}>"
        elif key == "url" and isinstance(value, str):
            shown[key] = redact_url(value)
        else:
            shown[key] = value
    return shown


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value (say, a server's ``env`` values) and every secret URL query
    value replaced by ``***``."""
    for secret in secrets:
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, _HIDDEN)
    return redact_url(text)
