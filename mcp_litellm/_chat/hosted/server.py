"""A remote MCP server that the provider calls itself, as :meth:`Chat.with_hosted_mcp` was given it.

:class:`HostedServer` holds the label, URL, chosen headers, allowed tools and approval rule, and builds the
``{"type": "mcp", ...}`` request tool (a client's tools as they are then, after its filters and pins);
:func:`hosted_server` checks ``with_hosted_mcp``'s arguments. Its approval handler is read one way for both
kinds of server: a client's own (which the client took from ``ml.config`` when it was made, or was given
since), or, for a server given by URL, ``ml.config``'s as it was when ``with_hosted_mcp`` was called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias
from urllib.parse import urlsplit

from mcp_types import ToolAnnotations

from mcp_litellm._client.primitives.handler_specs import HandlerSpec
from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.naming import safe_tool_name
from mcp_litellm.handlers import _settings

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client

ToolNames: TypeAlias = "Mapping[Literal['always', 'never'], Mapping[Literal['tool_names'], Sequence[str]]]"
RequireApproval: TypeAlias = "Literal['always', 'never'] | ToolNames"
"""The provider's ``require_approval``: ``"always"``, ``"never"``, or ``{"never": {"tool_names": [...]}}``
(and/or ``"always"``) to name the tools that need (or skip) approval."""
McpTool: TypeAlias = "dict[str, str | list[str] | dict[str, str] | RequireApproval]"
"""A ``{"type": "mcp", ...}`` tool of a Responses request."""


@dataclass(frozen=True)
class Named:
    """What an approval handler sees of a tool the chat has no :class:`Tool` for (a server given by URL)."""

    mcp_name: str
    annotations: ToolAnnotations | None = None
    client: None = None


@dataclass(frozen=True)
class HostedServer:
    """A remote MCP server offered to the provider (see :meth:`Chat.with_hosted_mcp`)."""

    label: str
    url: str
    headers: dict[str, str] = field(default_factory=dict, repr=False)  # may hold credentials
    allowed_tools: tuple[str, ...] | None = None
    require_approval: RequireApproval | None = None
    client: Client | None = field(default=None, repr=False)
    default_approval: HandlerSpec | None = field(default=None, repr=False)
    """For a server given by URL: ``ml.config``'s approval handler when ``with_hosted_mcp`` was called."""

    async def definition(self) -> McpTool:
        """The ``{"type": "mcp", ...}`` tool for the next request (the client's tools as they are now)."""
        tool: McpTool = {"type": "mcp", "server_label": self.label, "server_url": self.url}
        allowed = await self._allowed()
        if allowed is not None:
            tool["allowed_tools"] = allowed
        tool["require_approval"] = (self.require_approval if self.require_approval is not None else
                                    "always" if self.approval() is not None else "never")
        if self.headers:
            tool["headers"] = dict(self.headers)
        return tool

    async def _allowed(self) -> list[str] | None:
        if self.client is None:
            return list(self.allowed_tools) if self.allowed_tools is not None else None
        offered = [tool.mcp_name for tool in await self.client.atools()]  # after filters and pins
        if self.allowed_tools is None:
            return offered
        withheld = [name for name in self.allowed_tools if name not in offered]
        if withheld:
            raise ConfigError(f"allowed_tools names {withheld} for hosted server {self.label!r}, which client "
                              f"{self.client.name!r} does not offer (its include/exclude filters or tool pins "
                              f"withhold them, or the server has no such tool); it offers {offered}")
        return [name for name in offered if name in self.allowed_tools]

    def approval(self) -> HandlerSpec | None:
        """The approval handler for this server's calls: the client's, else the one ``ml.config`` had when
        the server was added (``None``: none)."""
        return self.client.approval_handler if self.client is not None else self.default_approval

    async def tool(self, name: str) -> Tool | Named:
        """The client's :class:`Tool` of that server name (a :class:`Named` stand-in when there is none)."""
        if self.client is not None:
            for tool in await self.client.atools():
                if tool.mcp_name == name:
                    return tool
        return Named(name)


def hosted_server(client_or_url: object, *, label: str | None, headers: Mapping[str, str] | None,
                  allowed_tools: Sequence[str] | None, require_approval: object) -> HostedServer:
    """A checked :class:`HostedServer` from :meth:`Chat.with_hosted_mcp`'s arguments."""
    from mcp_litellm._client.client import Client

    client: Client | None = None
    if isinstance(client_or_url, Client):
        client = client_or_url
        url = client.config.get("url") if client.transport_type in ("streamable", "sse") else None
        if not isinstance(url, str):
            raise ConfigError(f"client {client.name!r} talks to its server over {client.transport_type!r}, which "
                              "the provider cannot reach: a hosted MCP server must be a remote HTTP one (streamable "
                              "HTTP or SSE, with a URL the provider can reach); offer this one's tools with "
                              "chat.with_tools(client) instead")
        default_label = client.name
    elif isinstance(client_or_url, str):
        url, default_label = client_or_url, urlsplit(client_or_url).hostname or ""
    else:
        raise ConfigError(f"with_hosted_mcp() takes an ml.Client or a server URL, got {type(client_or_url).__name__}")
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise ConfigError(f"a hosted MCP server needs an http(s) URL the provider can reach, got {url!r}")
    name = label if label is not None else safe_tool_name(default_label.replace(".", "_")) or "mcp"
    if not isinstance(name, str) or not name or safe_tool_name(name) != name:
        raise ConfigError(f"label must be 1-64 characters from a-z, A-Z, 0-9, '_' and '-', got {label!r}")
    if headers is not None and (not isinstance(headers, Mapping) or
                                not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())):
        raise ConfigError("headers must be a mapping of header names to text values")
    if allowed_tools is not None and (isinstance(allowed_tools, str) or
                                      not all(isinstance(n, str) for n in allowed_tools)):
        raise ConfigError(f"allowed_tools must be a list of tool names, got {allowed_tools!r}")
    default = _settings.config.human_in_the_loop if client is None else None  # a snapshot, as a client takes
    return HostedServer(name, url, dict(headers or {}),
                        tuple(allowed_tools) if allowed_tools is not None else None,
                        check_require_approval(require_approval), client, default)


def check_require_approval(value: object) -> RequireApproval | None:
    """``value`` if the provider takes it as ``require_approval`` (or ``None``: by the approval handler)."""
    if value is None or value == "always" or value == "never":
        return "always" if value == "always" else "never" if value == "never" else None
    if isinstance(value, Mapping) and value and set(value) <= {"always", "never"} and all(
            isinstance(v, Mapping) and isinstance(v.get("tool_names"), list) for v in value.values()):
        return {("always" if key == "always" else "never"): {"tool_names": list(v["tool_names"])}
                for key, v in value.items()}
    raise ConfigError("require_approval must be 'always', 'never', or {'never': {'tool_names': [...]}} "
                      f"(or 'always' with the tools that need approval), got {value!r}")


__all__ = ["HostedServer", "McpTool", "Named", "RequireApproval", "check_require_approval", "hosted_server"]
