"""The streamable HTTP and (legacy) SSE transports.

Headers, timeouts and ``auth`` (any ``httpx2.Auth``, such as the SDK's ``OAuthClientProvider``)
are set on the ``httpx2.AsyncClient`` the SDK's transports use.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from mcp_litellm._errors import ConfigError
from mcp_litellm._transports._common import check_keys, check_type

_HTTP_KEYS = {"headers", "timeout", "sse_read_timeout", "auth"}


def _check(transport: str, config: Mapping[str, Any]) -> None:
    check_keys(transport, config, required={"url"}, optional=_HTTP_KEYS)
    url = config["url"]
    check_type(transport, "url", url, str, "a string")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"config key 'url' of the {transport!r} transport must start with http:// or https://")
    check_type(transport, "headers", config.get("headers"), Mapping, "a mapping of header names to values")
    check_type(transport, "timeout", config.get("timeout"), int | float, "a number of seconds")
    check_type(transport, "sse_read_timeout", config.get("sse_read_timeout"), int | float, "a number of seconds")
    auth = config.get("auth")
    if auth is not None and not isinstance(auth, httpx2.Auth):
        raise ConfigError(
            f"config key 'auth' of the {transport!r} transport must be an httpx2.Auth "
            f"(for example mcp.client.auth.OAuthClientProvider), got {type(auth).__name__}"
        )


def _headers(config: Mapping[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in (config.get("headers") or {}).items()}


def open_streamable(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``streamable``: config ``url``, ``headers``, ``timeout``, ``auth``."""
    _check("streamable", config)
    timeout = float(config.get("timeout") or 30.0)
    read_timeout = float(config.get("sse_read_timeout") or 300.0)

    @asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        http = httpx2.AsyncClient(
            headers=_headers(config),
            timeout=httpx2.Timeout(timeout, read=read_timeout),
            auth=config.get("auth"),
        )
        async with http, streamable_http_client(config["url"], http_client=http) as streams:
            yield streams

    return connect()


def open_sse(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``sse`` (the 2024-11-05 HTTP+SSE transport): ``url``, ``headers``, ``auth``."""
    _check("sse", config)
    return sse_client(
        config["url"],
        headers=_headers(config) or None,
        timeout=float(config.get("timeout") or 30.0),
        sse_read_timeout=float(config.get("sse_read_timeout") or 300.0),
        auth=config.get("auth"),
    )
