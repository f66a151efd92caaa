"""The exceptions mcp_litellm raises.

Everything derives from ``MCPLiteLLMError``::

    MCPLiteLLMError
    ├── ConfigError          bad arguments, unknown transport, missing config keys, bad config files
    ├── TransportError       could not connect, the server process died, the connection closed
    │   └── AuthError        OAuth failed: rejected credentials, denied or abandoned authorization, ...
    ├── RequestTimeoutError  a request took longer than its timeout (also a builtin ``TimeoutError``;
    │                        ``TimeoutError`` is its old, deprecated name)
    ├── ServerError          the server answered with a JSON-RPC error (``code``, ``message``, ``data``)
    ├── UnsupportedFeature   the server did not advertise the capability a call needs
    ├── NotFoundError        no tool / resource / prompt / template by that name (lists what exists)
    └── ToolLoopLimitError   a chat's model kept calling tools beyond ``max_tool_rounds``

SDK and transport exceptions are translated once, at the connection boundary, and chained with
``raise ... from exc`` so the original stays available as ``__cause__``. There, too, every error of a
request gets its ``server`` and ``method`` attributes.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any

from mcp_litellm._core.redact import redact_text

__all__ = [
    "AuthError",
    "ConfigError",
    "MCPLiteLLMError",
    "NotFoundError",
    "RequestTimeoutError",
    "ServerError",
    "TimeoutError",
    "ToolLoopLimitError",
    "TransportError",
    "UnsupportedFeature",
]


class MCPLiteLLMError(Exception):
    """Base class of every error raised by mcp_litellm. Known secrets (``env`` and header values, secret
    URL query values) are masked in its message, whatever text the server or a dependency put there.

    Attributes:
        server: the name of the server the failed request or connection was for (``None`` when the
            error is not about one server, e.g. a bad argument).
        method: the MCP method that failed (``"tools/call"``, ``"resources/read"``, ...), or ``None``.
    """

    server: str | None = None
    method: str | None = None

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(MCPLiteLLMError, ValueError):
    """A client, transport, handler or config file was set up with invalid values."""


class TransportError(MCPLiteLLMError, ConnectionError):
    """The connection to the server could not be made, or it was lost (process died, socket closed).

    Attributes:
        http_status: the HTTP status an HTTP server answered with when that is what failed (401, 403,
            404, 500 ...); ``None`` for every other transport failure.
    """

    def __init__(self, *args: object, http_status: int | None = None) -> None:
        super().__init__(*args)
        self.http_status = http_status


class AuthError(TransportError):
    """Authorizing with an HTTP server failed (OAuth 2.1): the authorization server rejected the client or
    a token, the user denied or did not finish the authorization in time, the redirect did not match the
    request (``state``), or the token store could not be written.

    The message names the server and what to do. It never contains tokens, codes, verifiers or client
    secrets.

    Attributes:
        http_status: the MCP server's HTTP status when it refused the credentials (401/403), else ``None``.
    """

    def for_server(self, name: str) -> AuthError:
        """This error with the server's name in front (the transport knows only its URL)."""
        text = str(self)
        if text.startswith(f"server {name!r}"):
            return self
        renamed = AuthError(f"server {name!r}: {text}", http_status=self.http_status)
        renamed.__cause__ = self.__cause__
        return renamed


class RequestTimeoutError(MCPLiteLLMError, builtins.TimeoutError):
    """A request exceeded its timeout; the request was cancelled on the server.

    It is also a builtin ``TimeoutError``, so ``except TimeoutError`` catches it."""


TimeoutError = RequestTimeoutError  # the old name, kept as a deprecated alias


class ServerError(MCPLiteLLMError):
    """The server answered a request with a JSON-RPC error.

    Attributes:
        code: the JSON-RPC error code (for example ``-32602`` for invalid params).
        message: the server's error message.
        data: the optional ``data`` member of the error.
    """

    def __init__(self, code: int, message: str, data: Any = None, *, method: str | None = None) -> None:
        self.code = code
        self.message = redact_text(message) if isinstance(message, str) else message
        self.data = data
        self.method = method
        where = f" on {method}" if method else ""
        super().__init__(f"server error {code}{where}: {message}")


class UnsupportedFeature(MCPLiteLLMError):
    """The server does not offer the capability the call needs (for example resource subscriptions)."""


class NotFoundError(MCPLiteLLMError, LookupError):
    """No tool, resource, template or prompt has the requested name.

    Attributes:
        kind: what was looked up ("tool", "resource", ...).
        name: the name that was not found.
        available: the names that do exist.
        listing: ``available`` as the message shows it (the first 50, quoted).
    """

    def __init__(self, kind: str, name: str, available: Iterable[str], *, server: str | None = None,
                 message: str | None = None) -> None:
        """``message`` replaces the default text (``no tool named 'x' on server 's'; available: ...``)."""
        self.kind = kind
        self.name = name
        self.server = server
        self.available = sorted(available)
        shown = ", ".join(repr(n) for n in self.available[:50]) or "none"
        more = f" (and {len(self.available) - 50} more)" if len(self.available) > 50 else ""
        self.listing = f"{shown}{more}"
        on = f" on server {server!r}" if server else ""
        super().__init__(message or f"no {kind} named {name!r}{on}; available: {self.listing}")


class ToolLoopLimitError(MCPLiteLLMError):
    """A chat's model kept asking for tools after ``max_tool_rounds`` rounds.

    The calls of the last turn were answered with error tool messages, so the history stays valid
    and the chat can be asked again.

    Attributes:
        rounds: the limit that was reached.
        message: the model's last message (the one with the unrun tool calls).
    """

    def __init__(self, rounds: int, message: Any) -> None:
        self.rounds = rounds
        self.message = message
        names = ", ".join(sorted({call.name for call in getattr(message, "tool_calls", [])})) or "none"
        super().__init__(
            f"the model still asked for tools ({names}) after max_tool_rounds={rounds} rounds; the chat stopped "
            "there. Raise max_tool_rounds on the Chat if the task needs more rounds."
        )
