"""Tool pins in Redis (``tool_pins="redis://host:6379/0"``): one pin set shared by every worker of an app.

Each server's pins are one JSON value under ``mcp-litellm:pins:<server>`` (the same ``{tool: pin}`` mapping
a :class:`~mcp_litellm._client.pins.FilePinStore` keeps per server), so a change accepted by one worker is
seen by all. Pins are read when a listing is checked, which the client caches until the server says its
tools changed, so Redis is asked rarely; the Python client is the ``redis`` package (``mcp-litellm[redis]``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import redact_url

REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_PREFIX = "mcp-litellm:pins:"


class RedisPinStore:
    """Pins in Redis, one key per server (see the module docstring)."""

    def __init__(self, url: str) -> None:
        try:
            import redis
        except ImportError:
            raise ConfigError(f"tool_pins={redact_url(url)!r} keeps pins in Redis, which needs the redis package: "
                              'pip install "mcp-litellm[redis]"') from None
        self.url = url
        self._redis = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=10)
        self._error: type[Exception] = redis.RedisError

    def __repr__(self) -> str:
        return f"RedisPinStore({redact_url(self.url)!r})"

    def _call(self, what: str, *args: Any) -> Any:
        try:
            return getattr(self._redis, what)(*args)
        except self._error as exc:
            raise ConfigError(f"the tool pins in Redis at {redact_url(self.url)} cannot be reached ({exc}); check "
                              "that the server runs and the URL in tool_pins") from None

    def load(self, server: str) -> dict[str, dict[str, Any]] | None:
        """The server's pins, or ``None`` when the server was never pinned."""
        return _parsed(self._call("get", _PREFIX + server), server)

    def save(self, server: str, pins: Mapping[str, Mapping[str, Any]]) -> None:
        """Replace the server's pins."""
        self._call("set", _PREFIX + server, json.dumps({name: dict(pins[name]) for name in sorted(pins)}))

    def servers(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Every pinned server's pins."""
        found: dict[str, dict[str, dict[str, Any]]] = {}
        for key in self._call("keys", _PREFIX + "*"):
            name = (key.decode() if isinstance(key, bytes) else str(key))[len(_PREFIX):]
            pins = self.load(name)
            if pins is not None:
                found[name] = pins
        return found


def _parsed(raw: Any, server: str) -> dict[str, dict[str, Any]] | None:
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ConfigError(f"the tool pins of {server!r} in Redis are not a JSON object; delete the key "
                          f"{_PREFIX + server!r} to pin the server's tools anew")
    return {str(name): dict(pin) for name, pin in data.items() if isinstance(pin, dict)}


__all__ = ["REDIS_SCHEMES", "RedisPinStore"]
