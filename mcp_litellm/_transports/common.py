"""Config-checking helpers shared by the built-in transports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp_litellm._core.errors import ConfigError


def check_keys(transport: str, config: Mapping[str, object], *, required: set[str], optional: set[str]) -> None:
    """Raise ``ConfigError`` for a missing required key or a key the transport does not know."""
    if not isinstance(config, Mapping):
        raise ConfigError(f"config for the {transport!r} transport must be a mapping, got {type(config).__name__}")
    missing = sorted(k for k in required if config.get(k) in (None, ""))
    if missing:
        raise ConfigError(
            f"the {transport!r} transport needs config key(s) {', '.join(map(repr, missing))}; "
            f"it accepts: {', '.join(sorted(required | optional))}"
        )
    unknown = sorted(set(config) - required - optional)
    if unknown:
        raise ConfigError(
            f"unknown config key(s) {', '.join(map(repr, unknown))} for the {transport!r} transport; "
            f"it accepts: {', '.join(sorted(required | optional))}"
        )


def check_type(transport: str, key: str, value: Any, expected: Any, what: str) -> None:
    """Raise ``ConfigError`` when ``value`` is not of the expected type."""
    if value is not None and not isinstance(value, expected):
        raise ConfigError(
            f"config key {key!r} of the {transport!r} transport must be {what}, got {type(value).__name__}"
        )
