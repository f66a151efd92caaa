"""The in-memory transport: connect to a server object in the same process (tests, embedding)."""

from __future__ import annotations

from mcp.server.lowlevel.server import Server
from mcp.server.mcpserver import MCPServer

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._transports.base import ExitReport, Transport, TransportTarget
from mcp_litellm._transports.common import check_keys


class MemoryTransport(Transport):
    """The ``memory`` transport: config ``{"server": <MCPServer or lowlevel Server>}``."""

    name = "memory"

    def check(self) -> None:
        check_keys("memory", self.config, required={"server"}, optional=set())
        server = self.config["server"]
        if not isinstance(server, MCPServer | Server):
            raise ConfigError(
                "config key 'server' of the 'memory' transport must be an mcp MCPServer (or lowlevel Server) "
                f"object, got {type(server).__name__}"
            )

    def open(self, report: ExitReport) -> TransportTarget:
        self.check()
        return self.config["server"]
