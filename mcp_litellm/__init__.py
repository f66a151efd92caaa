"""mcp_litellm: Model Context Protocol servers in LiteLLM chats."""

from mcp_litellm._client import Client, client
from mcp_litellm._errors import (
    ConfigError,
    MCPLiteLLMError,
    NotFoundError,
    ServerError,
    TimeoutError,
    TransportError,
    UnsupportedFeature,
)
from mcp_litellm._transports import register_transport

__version__ = "0.1.0"

__all__ = [
    "Client",
    "ConfigError",
    "MCPLiteLLMError",
    "NotFoundError",
    "ServerError",
    "TimeoutError",
    "TransportError",
    "UnsupportedFeature",
    "__version__",
    "client",
    "register_transport",
]
