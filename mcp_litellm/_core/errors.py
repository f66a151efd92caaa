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
    ├── ToolChangedError     a pinned tool's definition changed (or the tool is new): it is withheld
    ├── ToolLoopLimitError   a chat's model kept calling tools beyond ``max_tool_rounds``
    └── PoolFullError        a ClientPool had every slot busy for longer than a new user could wait

SDK and transport exceptions are translated once, at the connection boundary, and chained with
``raise ... from exc`` so the original stays available as ``__cause__`` (a timeout chains nothing: its
cause is only the deadline that fired). There, too, every error of a request gets its ``server`` and
``method`` attributes. A traceback shows what helps the user: where their code called, our message, and the
type and text of each chained exception, without the frames inside mcp_litellm and its dependencies (see
:func:`plain_traceback`).
"""

from __future__ import annotations

import asyncio
import builtins
import concurrent.futures
import os
import sys
import sysconfig
from collections.abc import Iterable
from types import TracebackType

from mcp_litellm._core.redact import redact_chain, redact_text

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

__all__ = [
    "AuthError",
    "ConfigError",
    "MCPLiteLLMError",
    "NotFoundError",
    "PoolFullError",
    "RequestTimeoutError",
    "ServerError",
    "TimeoutError",
    "ToolChangedError",
    "ToolLoopLimitError",
    "TransportError",
    "UnsupportedFeature",
]


class MCPLiteLLMError(Exception):
    """Base class of every error raised by mcp_litellm. Known secrets (``env`` and header values, secret
    URL query values) are masked in its message, whatever text the server or a dependency put there, and
    in the exception being handled where it is made (the one ``raise ... from exc`` chains), and in
    everything chained to that, so a traceback shows none either.

    Attributes:
        server: the name of the server the failed request or connection was for (``None`` when the
            error is not about one server, e.g. a bad argument).
        method: the MCP method that failed (``"tools/call"``, ``"resources/read"``, ...), or ``None``.
    """

    server: str | None = None
    method: str | None = None

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_text(arg) if isinstance(arg, str) else arg for arg in args))
        redact_chain(sys.exc_info()[1])

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle and copy as made: its message and attributes, without calling ``__init__`` again (whose
        arguments differ from the message an exception keeps in ``args``)."""
        return _rebuilt, (type(self), self.args, dict(self.__dict__))


def _rebuilt(cls: type[MCPLiteLLMError], args: tuple[object, ...], state: dict[str, object]) -> MCPLiteLLMError:
    """An error of ``cls`` with ``args`` and the attributes ``state`` (what :meth:`MCPLiteLLMError.__reduce__`
    saved), unpickled or copied."""
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


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
        authorization_url: where to send the user to authorize, when the error is that a user of a
            :class:`~mcp_litellm.ClientPool` has not authorized yet (and no ``authorize`` callable is set).
    """

    authorization_url: str | None = None

    def for_server(self, name: str) -> AuthError:
        """This error with the server's name in front (the transport knows only its URL)."""
        text = str(self)
        if text.startswith(f"server {name!r}"):
            return self
        renamed = AuthError(f"server {name!r}: {text}", http_status=self.http_status)
        renamed.__cause__ = self.__cause__
        renamed.authorization_url = self.authorization_url
        return renamed


class RequestTimeoutError(MCPLiteLLMError, builtins.TimeoutError):
    """A request exceeded its timeout; the request was cancelled on the server.

    It is also a builtin ``TimeoutError``, so ``except TimeoutError`` catches it."""


TimeoutError = RequestTimeoutError  # the old name, kept as a deprecated alias


def server_unreachable(error: BaseException) -> bool:
    """Whether ``error`` says only that the server cannot be reached or did not answer (its connection is down, a
    request timed out), not that a login failed (:class:`AuthError`, the user's to fix): what a listing for a
    model outlasts with the tools last listed."""
    return isinstance(error, TransportError | RequestTimeoutError) and not isinstance(error, AuthError)


REFUSED_BY_CLIENT = {"refused_by": "mcp_litellm"}
"""The ``data`` of a JSON-RPC error answer that a transport makes itself to fail one call whose answer it could
not take (over ``max_message_size``, unreadable): the ``ServerError`` then does not read as the server's."""


class ServerError(MCPLiteLLMError):
    """The server answered a request with a JSON-RPC error.

    Attributes:
        code: the JSON-RPC error code (for example ``-32602`` for invalid params).
        message: the server's error message.
        data: the optional ``data`` member of the error.
    """

    def __init__(self, code: int, message: str, data: object = None, *, method: str | None = None) -> None:
        self.code = code
        self.message = redact_text(message) if isinstance(message, str) else message
        self.data = data
        self.method = method
        where = f" on {method}" if method else ""
        if isinstance(data, dict) and data.get("refused_by") == REFUSED_BY_CLIENT["refused_by"]:
            # the client could not take the server's answer (too large, nested too deeply): not the server's error
            super().__init__(f"{method or 'the request'} failed: {message}")
        else:
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


class ToolChangedError(MCPLiteLLMError):
    """A tool's definition differs from its pin (``tool_pins``), or the tool was not there when its server
    was pinned: it is withheld (left out of ``tools()``, not callable) until the change is accepted with
    ``client.pin_tools()`` or ``mcp-litellm pins --accept SERVER TOOL``.

    Attributes:
        server: the server's name.
        tool: the tool's name on the server.
        changes: what changed: ``"new tool"``, or some of ``"description"``, ``"input schema"``,
            ``"output schema"``, ``"annotations"``; ``("interface",)`` for an MCP App's interface (``tool``
            is then its ``ui://`` URI; accept it with ``client.pin_ui(tool)``).
    """

    def __init__(self, server: str, tool: str, changes: tuple[str, ...]) -> None:
        what = ("it is new (not there when the server was pinned)" if changes == ("new tool",) else
                f"its {', '.join(changes)} changed since it was pinned")
        if changes == ("interface",):  # an MCP App's ui:// resource, pinned when first read
            message = (f"interface {tool!r} of server {server!r} is withheld: its HTML or hints changed since it "
                       "was pinned; review it, then accept it with client.pin_ui(tool) for a tool that shows it")
        else:
            message = (f"tool {tool!r} of server {server!r} is withheld: {what}; review it with 'mcp-litellm pins', "
                       f"then accept it with client.pin_tools([{tool!r}]) or "
                       f"'mcp-litellm pins --accept {server} {tool}'")
        super().__init__(message)
        self.server = server
        self.tool = tool
        self.changes = changes


class ToolLoopLimitError(MCPLiteLLMError):
    """A chat's model kept asking for tools after ``max_tool_rounds`` rounds.

    The calls of the last turn were answered with error tool messages, so the history stays valid
    and the chat can be asked again.

    Attributes:
        rounds: the limit that was reached.
        message: the model's last message (the one with the unrun tool calls).
    """

    def __init__(self, rounds: int, message: object) -> None:
        self.rounds = rounds
        self.message = message
        names = ", ".join(sorted({call.name for call in getattr(message, "tool_calls", [])})) or "none"
        super().__init__(
            f"the model still asked for tools ({names}) after max_tool_rounds={rounds} rounds; the chat stopped "
            "there. Raise max_tool_rounds on the Chat if the task needs more rounds."
        )


class PoolFullError(MCPLiteLLMError):
    """A :class:`~mcp_litellm.ClientPool` had ``max_users`` users whose groups were all in use (starting,
    borrowed, just handed over, or with a request in flight) for as long as a new user could wait for one of
    them to become idle (``wait_timeout``). Nobody's group was stopped for it; the user can try again.

    Attributes:
        user: the id of the user who waited.
        busy: how many users' groups were in use.
        max_users: the pool's ``max_users``.
        waited: how many seconds the user waited.
    """

    def __init__(self, user: str, busy: int, max_users: int, waited: float) -> None:
        self.user = user
        self.busy = busy
        self.max_users = max_users
        self.waited = waited
        groups = "1 user's group" if busy == 1 else f"all {busy} users' groups"
        super().__init__(
            f"ClientPool is full: user {user!r} waited {waited:.1f}s (wait_timeout) for a slot, but {groups} stayed "
            f"in use (max_users={max_users}: starting, borrowed, handed over by for_user() and not used yet, or with "
            "requests in flight); raise max_users or wait_timeout, and release borrowed groups (end each "
            "pool.borrow()/aborrow() block) as soon as its request is done"
        )


def _internal_places() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    places = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # the mcp_litellm package
    places.update(os.path.abspath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths)
    return tuple(place.rstrip(os.sep) + os.sep for place in places)


_INTERNAL = _internal_places()


def _internal(traceback: TracebackType | None) -> bool:
    """Whether every frame of ``traceback`` is in mcp_litellm, the standard library or an installed package
    (the SDK, anyio, httpx...): frames that say nothing to a user whose own code is elsewhere."""
    while traceback is not None:
        filename = os.path.abspath(traceback.tb_frame.f_code.co_filename)
        if not filename.startswith(_INTERNAL) and not filename.startswith("<"):
            return False
        traceback = traceback.tb_next
    return True


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_HAND_OVER = tuple(os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep
                   for module in (concurrent.futures, asyncio))
"""Where a call crosses to the session's loop and back (run_sync's future, the loop's task)."""


def _ours(traceback: TracebackType) -> bool:
    filename = os.path.abspath(traceback.tb_frame.f_code.co_filename)
    return filename.startswith(_PACKAGE) or filename.startswith(_HAND_OVER)


def outside_frames(error: BaseException) -> BaseException:
    """``error`` (raised outside mcp_litellm: LiteLLM's exception for a failed model request, an exception of
    the user's own callback) without the frames it passed through inside mcp_litellm on its way back to the
    user's call, and the hand-over between threads: its traceback starts where the code that raised it
    begins. An error raised by mcp_litellm's own code is left as it is (a bug there needs every frame)."""
    traceback = error.__traceback__
    innermost = traceback
    while innermost is not None and innermost.tb_next is not None:
        innermost = innermost.tb_next
    if innermost is None or _ours(innermost):
        return error
    while traceback is not None and _ours(traceback):
        traceback = traceback.tb_next
    return error.with_traceback(traceback)


def plain_traceback(error: MCPLiteLLMError) -> MCPLiteLLMError:
    """``error`` ready to reach the user's code: without the frames it collected inside mcp_litellm (it is
    raised again where the user's call returns), and each exception chained to it that only ever ran in
    mcp_litellm and its dependencies keeps its type and message but not its frames nor the exceptions it
    was raised while handling. An exception raised in the user's own code (a callback) keeps everything."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error.__cause__, error.__context__]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if _internal(current.__traceback__):
            current.__traceback__ = None
            if current.__context__ is not None and _internal(current.__context__.__traceback__):
                current.__suppress_context__ = True
        pending += [current.__cause__, current.__context__, *getattr(current, "exceptions", ())]
    return error.with_traceback(None)


def reason(error: BaseException) -> BaseException:
    """What to chain to our error for ``error``: for a task group's exception group (how anyio reports a
    transport that failed), the one exception in it that says what happened, not the group around it."""
    while isinstance(error, BaseExceptionGroup):
        inner = [e for e in error.exceptions if not isinstance(e, asyncio.CancelledError | GeneratorExit)]
        if len(inner) != 1:
            break
        error = inner[0]
    return error
