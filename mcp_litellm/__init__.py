"""mcp_litellm: Model Context Protocol servers in LiteLLM chats."""

from mcp_litellm import handlers
from mcp_litellm._chat.app_bridge import AppBridge
from mcp_litellm._chat.apps import AppView
from mcp_litellm._chat.chat import Chat
from mcp_litellm._chat.code_mode import CodeMode
from mcp_litellm._chat.hooks import MessageContext, ToolContext
from mcp_litellm._chat.message import Chunk, Message, ToolCall, Usage
from mcp_litellm._client.apps import AppResource, AppResourceError, ToolUI
from mcp_litellm._client.client import Client
from mcp_litellm._client.features import install_features as _install_features
from mcp_litellm._client.live import use_running_loop
from mcp_litellm._client.make_client import client
from mcp_litellm._client.pins import FilePinStore, PinStore
from mcp_litellm._client.primitives.progress import ProgressUpdate
from mcp_litellm._client.primitives.prompt import Completion, Prompt, PromptArgument
from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
from mcp_litellm._client.primitives.task import Task
from mcp_litellm._client.primitives.tool import Tool, ToolResult, to_litellm_tools
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.errors import (
    AuthError,
    ConfigError,
    MCPLiteLLMError,
    NotFoundError,
    PoolFullError,
    RequestTimeoutError,
    ServerError,
    ToolChangedError,
    ToolLoopLimitError,
    TransportError,
    UnsupportedFeature,
)
from mcp_litellm._core.public import show_as_public as _show_as_public
from mcp_litellm._core.version import VERSION
from mcp_litellm._servers.config_file import load_config
from mcp_litellm._servers.establish import aestablish_connection, establish_connection
from mcp_litellm._servers.group import ClientGroup
from mcp_litellm._servers.pool import ClientPool
from mcp_litellm._transports import register_transport
from mcp_litellm._transports.configs import MemoryConfig, SseConfig, StdioConfig, StreamableConfig
from mcp_litellm.handlers._client_features import ClientFeatureSet as _ClientFeatureSet
from mcp_litellm.handlers._settings import Config, config, configure

_install_features(_ClientFeatureSet)  # the package root wires the default: every Client's client features

__version__ = VERSION
"""The installed version of mcp-litellm (``"0+unknown"`` when run from a tree that was never installed)."""

TimeoutError = RequestTimeoutError
"""Deprecated alias of :class:`RequestTimeoutError` (its old name, which shadowed the builtin); left out of
``__all__`` so ``from mcp_litellm import *`` no longer shadows the builtin ``TimeoutError``."""

__all__ = [
    "AppBridge",
    "AppResource",
    "AppResourceError",
    "AppView",
    "AuthError",
    "Chat",
    "Chunk",
    "Client",
    "ClientGroup",
    "ClientPool",
    "CodeMode",
    "CallContext",
    "CodeRun",
    "Completion",
    "Config",
    "ConfigError",
    "FilePinStore",
    "MCPLiteLLMError",
    "MemoryConfig",
    "Message",
    "MessageContext",
    "NotFoundError",
    "PinStore",
    "PoolFullError",
    "ProgressUpdate",
    "Prompt",
    "PromptArgument",
    "Resource",
    "ResourceTemplate",
    "RequestTimeoutError",
    "ServerError",
    "SseConfig",
    "StdioConfig",
    "StreamableConfig",
    "Task",
    "Tool",
    "ToolCall",
    "ToolChangedError",
    "ToolContext",
    "ToolLoopLimitError",
    "ToolResult",
    "ToolUI",
    "TransportError",
    "UnsupportedFeature",
    "Usage",
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

_show_as_public(globals(), __all__)  # public classes show as mcp_litellm.X in reprs and tracebacks
