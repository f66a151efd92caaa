"""Keep secrets (header values, environment values, auth objects, URL query keys) out of reprs and messages."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

_HIDDEN = "***"
_SECRET_KEYS = {"headers", "env", "auth"}
_MIN_SECRET = 6
"""Shorter values (``"1"``, ``"debug"``...) are not masked in free text: they would mangle it."""

_SECRET_PARAM = re.compile(
    r"(key|token|secret|password|passwd|pwd|signature|sig|auth|credentials?|code|verifier|assertion)$", re.I)
"""Query parameter names whose values are secrets: api_key, apiKey, key, token, access_token, secret,
an OAuth redirect's code, a PKCE code_verifier, ..."""
_OAUTH_PLAIN = {"client_id", "scopes", "redirect_uri", "client_metadata_url", "grant", "signing_algorithm", "timeout"}
"""``oauth`` settings shown as they are; the others (client_secret, private_key, ...) are masked."""
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
        if key == "oauth" and isinstance(value, Mapping):
            shown[key] = {k: _oauth_value(k, v) for k, v in value.items()}
        elif key == "auth" and isinstance(value, str):
            shown[key] = value
        elif key in _SECRET_KEYS and isinstance(value, Mapping):
            shown[key] = {k: _HIDDEN for k in value}
        elif (key in _SECRET_KEYS and value is not None) or key == "server":
            shown[key] = f"<{type(value).__name__}>"
        elif key == "url" and isinstance(value, str):
            shown[key] = redact_url(value)
        else:
            shown[key] = value
    return shown


def _oauth_value(key: str, value: Any) -> Any:
    if key in _OAUTH_PLAIN or value is None:
        return value
    if key == "storage" and isinstance(value, str):
        return value
    return f"<{type(value).__name__}>" if key in ("authorize", "storage") else _HIDDEN


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value (say, a server's ``env`` values) and every secret URL query
    value replaced by ``***``."""
    for secret in secrets:
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, _HIDDEN)
    return redact_url(text)
