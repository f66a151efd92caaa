"""mcp_litellm: Model Context Protocol servers in LiteLLM chats."""

from mcp_litellm import handlers
from mcp_litellm._chat import Chat
from mcp_litellm._client import Client, client, use_running_loop
from mcp_litellm._config import Config, config, configure
from mcp_litellm._config_file import load_config
from mcp_litellm._errors import (
    ConfigError,
    MCPLiteLLMError,
    NotFoundError,
    ServerError,
    TimeoutError,
    ToolLoopLimitError,
    TransportError,
    UnsupportedFeature,
)
from mcp_litellm._group import ClientGroup, aestablish_connection, establish_connection
from mcp_litellm._message import Chunk, Message, ToolCall
from mcp_litellm._prompt import Completion, Prompt, PromptArgument
from mcp_litellm._resource import Resource, ResourceTemplate
from mcp_litellm._tool import Tool, ToolResult, to_litellm_tools
from mcp_litellm._transports import register_transport

__version__ = "0.1.0"

__all__ = [
    "Chat",
    "Chunk",
    "Client",
    "ClientGroup",
    "Completion",
    "Config",
    "ConfigError",
    "MCPLiteLLMError",
    "Message",
    "NotFoundError",
    "Prompt",
    "PromptArgument",
    "Resource",
    "ResourceTemplate",
    "ServerError",
    "TimeoutError",
    "Tool",
    "ToolCall",
    "ToolLoopLimitError",
    "ToolResult",
    "TransportError",
    "UnsupportedFeature",
    "__version__",
    "aestablish_connection",
    "client",
    "config",
    "configure",
    "establish_connection",
    "handlers",
    "load_config",
    "register_transport",
    "to_litellm_tools",
    "use_running_loop",
]
