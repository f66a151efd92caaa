"""The ``config=`` of each built-in transport as a ``TypedDict``, so a type checker sees its keys.

Annotate a config with one (``config: ml.StdioConfig = {...}``) and mypy or pyright reports a misspelt
key or a value of the wrong type before the client runs. The optional ``transport`` key names the
transport, so a config can carry it in place of ``transport_type=``. Any ``Mapping[str, object]`` is still
accepted where these are.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypedDict, Union

if TYPE_CHECKING:
    import httpx2
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

__all__ = ["MemoryConfig", "SseConfig", "StdioConfig", "StreamableConfig", "TransportConfig"]


class _StdioKeys(TypedDict):
    command: str


class StdioConfig(_StdioKeys, total=False):
    """``config`` of the ``stdio`` transport: the server runs as a subprocess.

    ``command`` (required) is the program; ``args`` its arguments; ``env`` the variables it gets on top of
    a safe subset of yours (their values are masked in logs and errors); ``cwd`` its working directory.
    """

    transport: Literal["stdio"]
    args: Sequence[str | int | float]
    env: Mapping[str, str]
    cwd: str | os.PathLike[str]


class _HttpKeys(TypedDict):
    url: str


class _HttpConfig(_HttpKeys, total=False):
    headers: Mapping[str, str]
    timeout: float
    sse_read_timeout: float
    auth: Literal["oauth"] | httpx2.Auth
    oauth: Mapping[str, object]
    allow_http: bool


class StreamableConfig(_HttpConfig, total=False):
    """``config`` of the ``streamable`` (streamable HTTP) transport.

    ``url`` (required) is the MCP endpoint; ``headers`` are sent with every request (their values are
    masked); ``timeout`` and ``sse_read_timeout`` are seconds (default 30 and 300); ``auth`` is ``"oauth"``
    or any ``httpx2.Auth``; ``oauth`` holds the OAuth settings (see the connect guide); ``allow_http`` lets
    credentials go to a plain ``http://`` URL off this machine.
    """

    transport: Literal["streamable", "streamable_http", "streamable-http", "http"]


class SseConfig(_HttpConfig, total=False):
    """``config`` of the legacy ``sse`` (HTTP+SSE) transport: the same keys as :class:`StreamableConfig`."""

    transport: Literal["sse"]


class _MemoryKeys(TypedDict):
    server: MCPServer | Server[Any]


class MemoryConfig(_MemoryKeys, total=False):
    """``config`` of the ``memory`` transport: ``server`` is an ``MCPServer`` (or lowlevel ``Server``) object in
    the same process."""

    transport: Literal["memory"]


TransportConfig = Union[StdioConfig, StreamableConfig, SseConfig, MemoryConfig]  # noqa: UP007 (a runtime alias on 3.10)
"""The config of any built-in transport."""
