"""How SDK and transport failures become mcp_litellm's exceptions: the one mapping every request and
every connect goes through (see :meth:`Connection.request <.connection.Connection.request>`).

An HTTP error status travels beside the SDK's exception in the request's :class:`HttpObserver`: with it,
an error the SDK made up for a status becomes a ``TransportError`` that names the status and what to do,
and a forgotten MCP session (``SessionExpired``) is told from a rejected request.
"""

from __future__ import annotations

import builtins
import re
import sys

import anyio
import httpx2
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, METHOD_NOT_FOUND, REQUEST_TIMEOUT
from pydantic import ValidationError

from mcp_litellm._core.clean_text import clean
from mcp_litellm._core.errors import (
    AuthError,
    MCPLiteLLMError,
    RequestTimeoutError,
    ServerError,
    TransportError,
)
from mcp_litellm._core.sdk_compat import CONNECTION_CLOSED_MESSAGE, sdk_stand_ins
from mcp_litellm._transports.error_body import read_body, sent_credentials
from mcp_litellm._transports.http import HttpObserver, HttpStatus, http_status_advice
from mcp_litellm._transports.lost_answers import ANSWER_CUT
from mcp_litellm._transports.stdio import ExitReport
from mcp_litellm._transports.unreachable import connect_failure, unreachable

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

SDK_STAND_INS = sdk_stand_ins()
"""The JSON-RPC errors mcp's streamable HTTP client makes up for an HTTP error without a JSON-RPC body."""



def describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class SessionExpired(TransportError):
    """The HTTP server answered 404 (or a session-related 400) to a request naming a session it used to know."""

    def __init__(self, server: str, method: str, status: int, detail: str | None = None) -> None:
        self.detail = detail
        super().__init__(
            f"server {server!r} answered HTTP {status} to {method}: {http_status_advice(status, with_session=True)}",
            http_status=status,
        )


_NO_EVENT_STORE = " (it sent no event id to resume from: it keeps no event store)"


class AnswerLost(TransportError):
    """A streamable HTTP answer was cut off (the connection dropped mid-response) and the server could not
    resume it: that call failed, perhaps after the server ran it, and the session is kept (it is the
    server's to forget). Only a call that failed this way, or on a lost connection, may be retried."""

    def __init__(self, server: str, method: str, detail: str) -> None:
        super().__init__(
            f"server {server!r} did not finish its answer to {method}: the connection dropped mid-answer "
            f"({detail}) and the server could not resume it{'' if 'reconnect' in detail else _NO_EVENT_STORE}, "
            "so the call may or may not have run on the server; the client stays connected (its MCP session is "
            "kept, where the server keeps one) and the next request goes through it")


def forgot_session(failure: HttpStatus, exc: MCPError, stand_in: bool) -> bool:
    """Whether an HTTP error status means "this MCP session is unknown here" (expired, or the server restarted).

    The rule, and why:

    - Only a request that named a session (it carried ``mcp-session-id``) can have lost it; without
      one, 404 means a wrong URL and 400 a bad request.
    - 404 is the specification's answer for an unknown session, unless the server said in JSON-RPC
      that the *method* is unknown (-32601).
    - 400 is what TypeScript-SDK servers (and the many written after its examples, server-everything
      among them) answer instead: ``"Bad Request: No valid session ID provided"``. But 400 is also
      the plain "malformed request" status, and 2026-07-28 servers send JSON-RPC errors such as
      invalid params with it. So a 400 counts only when the error text - the body the server sent, or
      the JSON-RPC error the SDK parsed from it - mentions the session. A 400 without any text
      (empty or unreadable body) counts too: the cost of a wrong guess is one re-initialisation, and
      the retry on the brand-new session then reports its 400 as the rejected request it is, with
      the client left connected (see ``Connection.request``).
    """
    if not failure.with_session:
        return False
    if failure.status == 404:
        return exc.code != METHOD_NOT_FOUND
    if failure.status != 400:
        return False
    said = [text for text in (failure.body, None if stand_in else exc.message) if text and text.strip()]
    return not said or any("session" in text.lower() for text in said)


def http_error(status: int, reason: str, *, lead: str, detail: str | None = None,
               credentials: bool | None = None) -> TransportError:
    """A ``TransportError`` for an HTTP error status: ``lead`` says who and when, then what the server
    said (``detail``: its JSON-RPC error message, or the body it sent) and what the status means."""
    phrase = f"HTTP {status} {reason}".strip()
    quoted = server_words(detail) if detail else ""
    said = f" (the server said: {quoted})" if quoted else ""
    advice = http_status_advice(status, credentials=credentials)
    return TransportError(f"{lead} {phrase}{said}; {advice}", http_status=status)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?")
_TAG = re.compile(r"<(?:script|style)\b.*?</(?:script|style)>|<[^>]*>", re.I | re.S)
_QUOTED_MAX = 300


def server_words(text: str) -> str:
    """A server's own words (an error body, a JSON-RPC error message) ready to quote in one line of an
    error message: terminal escapes, control and hidden characters and HTML tags removed, white space
    collapsed, cut at 300 characters. Secrets are masked by the error itself."""
    text = _ANSI.sub("", text)
    if text.lstrip().startswith("<"):
        text = _TAG.sub(" ", text)
    text = " ".join(clean(text.replace("\t", " ").replace("\n", " ")).split())
    return text if len(text) <= _QUOTED_MAX else f"{text[:_QUOTED_MAX]}\u2026"


def _http_failure(failure: HttpStatus, exc: MCPError, *, server: str, method: str) -> MCPLiteLLMError | None:
    """Map a JSON-RPC error that came with an HTTP error status; ``None`` keeps it a ``ServerError``."""
    status = failure.status
    stand_in = (exc.code, exc.message) in SDK_STAND_INS or exc.code == CONNECTION_CLOSED
    if forgot_session(failure, exc, stand_in):
        return SessionExpired(server, method, status, detail=failure.body if stand_in else exc.message)
    if not (stand_in or status in (401, 403) or status >= 500):
        return None  # a JSON-RPC error the server chose to send with a 4xx status (2026-07-28 does that)
    return http_error(status, failure.reason, lead=f"server {server!r} answered {method} with",
                      detail=failure.body if stand_in else exc.message, credentials=failure.credentials)


def name_the_request(exc: MCPLiteLLMError, server: str, method: str | None) -> None:
    """Set the server and method a failure belongs to, unless a deeper request already did."""
    if exc.server is None:
        exc.server = server
    if exc.method is None and method is not None:
        exc.method = method


def translate(
    exc: BaseException, *, server: str, method: str, timeout: float | None, http: HttpObserver | None = None
) -> MCPLiteLLMError | None:
    """Map an SDK or transport exception to ours; ``None`` when it is not ours to translate.

    ``http`` is what the HTTP layer answered while the request ran (streamable HTTP only): with it,
    an error the SDK made up for an HTTP status becomes a ``TransportError`` that names the status.
    """
    if isinstance(exc, MCPLiteLLMError):
        return exc
    if http is not None and isinstance(http.auth_error, AuthError):  # OAuth failed: that is the real reason
        return http.auth_error.for_server(server)
    if isinstance(exc, MCPError):
        failure = http.failure() if http is not None else None
        if failure is not None:
            mapped = _http_failure(failure, exc, server=server, method=method)
            if mapped is not None:
                return mapped
        if (exc.code == CONNECTION_CLOSED and exc.message and exc.message != CONNECTION_CLOSED_MESSAGE
                and http is not None):
            # the streamable HTTP transport failed this one request (its answer was cut), not the session
            cut = exc.message.startswith(f"{ANSWER_CUT} (") and exc.message.endswith(")")
            return AnswerLost(server, method, exc.message[len(ANSWER_CUT) + 2:-1] if cut else exc.message)
        if exc.code == CONNECTION_CLOSED:
            why = f" ({exc.message})" if exc.message and exc.message != CONNECTION_CLOSED_MESSAGE else ""
            return TransportError(f"the connection to server {server!r} closed during {method}{why}")
        if exc.code == REQUEST_TIMEOUT:
            return RequestTimeoutError(f"{method} on server {server!r} timed out after {timeout}s; it was cancelled")
        return ServerError(exc.code, exc.message, exc.data, method=method)
    if isinstance(exc, builtins.TimeoutError):
        return RequestTimeoutError(f"{method} on server {server!r} timed out after {timeout}s; it was cancelled")
    if isinstance(exc, httpx2.HTTPStatusError):
        return http_error(exc.response.status_code, exc.response.reason_phrase,
                          lead=f"server {server!r} answered {method} with", detail=read_body(exc.response),
                          credentials=sent_credentials(exc.request))
    if isinstance(exc, httpx2.HTTPError | OSError | anyio.BrokenResourceError | anyio.ClosedResourceError):
        return TransportError(f"transport failure talking to server {server!r} during {method}: {describe(exc)}")
    if isinstance(exc, ValidationError):
        return ServerError(-32603, f"server {server!r} sent a malformed {method} result: {exc}", method=method)
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            mapped = translate(inner, server=server, method=method, timeout=timeout, http=http)
            if mapped is not None:
                return mapped
    return None


def start_error(error: BaseException, *, server: str, url: str | None, handshake: HttpObserver,
                report: ExitReport) -> MCPLiteLLMError:
    """The error for a failed start; for a stdio server that exited, with the last stderr lines (secrets
    masked), so the reason shows without turning on the server's log."""
    mapped = _map_start_error(error, server=server, url=url, handshake=handshake)
    left_behind = report.describe()
    if left_behind is not None and type(mapped) is TransportError and mapped.http_status is None:
        mapped = TransportError(f"{mapped}; {left_behind}")
    return mapped


def _map_start_error(error: BaseException, *, server: str, url: str | None, handshake: HttpObserver) -> MCPLiteLLMError:
    at = f" at {url}" if url else ""  # secret query values are masked by the error
    if isinstance(error, MCPLiteLLMError):
        return error
    if isinstance(handshake.auth_error, AuthError):
        return handshake.auth_error.for_server(server)
    if isinstance(error, FileNotFoundError):
        return TransportError(
            f"could not start server {server!r}: command not found ({error.filename or error}); "
            "check 'command' in its config and that it is installed and on PATH"
        )
    failure = handshake.failure()
    if failure is not None and isinstance(error, MCPError | BaseExceptionGroup):
        said = error.message if isinstance(error, MCPError) else None
        stand_in = said is None or (getattr(error, "code", None), said) in SDK_STAND_INS
        return http_error(failure.status, failure.reason,
                          lead=f"could not connect to server {server!r}{at}: the MCP handshake was "
                               "answered with",
                          detail=failure.body if stand_in else said, credentials=failure.credentials)
    if isinstance(error, httpx2.HTTPStatusError):
        return http_error(error.response.status_code, error.response.reason_phrase,
                          lead=f"could not connect to server {server!r}{at}: it answered",
                          detail=read_body(error.response), credentials=sent_credentials(error.request))
    unreached = connect_failure(error) if url else None
    if unreached is not None and url:
        return TransportError(f"could not connect to server {server!r} {unreachable(url, unreached)}")
    mapped = translate(error, server=server, method="initialize", timeout=None)
    if isinstance(mapped, TransportError | RequestTimeoutError):
        return TransportError(f"could not connect to server {server!r}: {mapped}")
    if mapped is not None:
        return TransportError(f"server {server!r} failed the MCP handshake: {mapped}")
    return TransportError(f"could not connect to server {server!r}: {describe(error)}")
