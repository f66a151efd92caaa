"""The in-memory transport: connect to a server object in the same process (tests, embedding)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._transports.common import check_keys


def open_memory(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``memory``: config ``{"server": <MCPServer or lowlevel Server>}``."""
    check_keys("memory", config, required={"server"}, optional=set())
    server = config["server"]
    if not isinstance(server, MCPServer | Server):
        raise ConfigError(
            "config key 'server' of the 'memory' transport must be an mcp MCPServer (or lowlevel Server) "
            f"object, got {type(server).__name__}"
        )
    return server
