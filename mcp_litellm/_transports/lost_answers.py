"""A streamable HTTP answer that is cut off fails its own call, and the MCP session goes on.

A proxy's idle timeout or a network blip can cut the connection that carries one POST's answer. The
SDK's streamable HTTP client (mcp 2.3.0) handles that only for an answer that is an event stream and
already started: it fails that one request ("SSE stream ended without a response") and the session
goes on. A cut anywhere else raises out of the task that ran the POST and ends the transport's task
group, and so the whole session, though the server still keeps it:

- a JSON answer (``application/json``, what 2026-07-28 servers send) whose body is cut: the SDK's
  ``_handle_json_response`` catches ``httpx2.StreamError`` but not ``httpx2.TransportError``;
- a POST whose connection drops before the answer's head arrived (``_handle_post_request`` catches nothing).

Both are turned into a JSON-RPC error answer to that request here (:class:`AnswerKeepingClient` for the
second, :mod:`.http_limits`'s body bound, which reads JSON bodies whole, for the first), so the SDK fails
that call like the cut event stream and the session goes on. The upstream fix would be for the SDK to
resolve the request with ``CONNECTION_CLOSED`` on any ``httpx2.TransportError`` in
``_handle_post_request`` (around the POST and the JSON read), as it already does for event streams.

A connection that cannot be made at all (``ConnectError``, ``ConnectTimeout``) is left to end the
transport: the server is unreachable, and the client reconnects on the next request.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import mcp_types as types

__all__ = ["ANSWER_CUT", "AnswerKeepingClient", "lost_answer", "request_id_of"]

ANSWER_CUT = "the connection dropped before the answer was complete"
"""Start of the message of the JSON-RPC error that stands in for an answer cut off (see ``lost_answer``)."""

_DROPPED = (httpx2.ReadError, httpx2.WriteError, httpx2.RemoteProtocolError, httpx2.ReadTimeout, httpx2.WriteTimeout)
"""Failures of a POST whose connection was made: the request may have reached the server."""


def request_id_of(request: httpx2.Request) -> int | str | None:
    """The id of the JSON-RPC request ``request`` carries, if it carries one."""
    if request.method != "POST":
        return None
    try:
        message = json.loads(request.content)
    except (ValueError, RecursionError, httpx2.RequestNotRead):
        return None
    if not isinstance(message, dict) or "method" not in message:
        return None
    request_id = message.get("id")
    return request_id if isinstance(request_id, int | str) and not isinstance(request_id, bool) else None


def lost_answer(request_id: int | str, exc: BaseException) -> bytes:
    """The JSON-RPC error (``CONNECTION_CLOSED``) that fails request ``request_id`` whose answer was lost."""
    text = str(exc).strip()
    why = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id,
                               error=types.ErrorData(code=types.CONNECTION_CLOSED, message=f"{ANSWER_CUT} ({why})"))
    return error.model_dump_json(by_alias=True, exclude_unset=True).encode()


class AnswerKeepingClient(httpx2.AsyncClient):
    """An ``httpx2.AsyncClient`` whose JSON-RPC request POSTs never raise for a connection that dropped
    after it was made: they answer with a JSON-RPC error for that request instead (see the module)."""

    async def send(self, request: httpx2.Request, **kwargs: Any) -> httpx2.Response:
        try:
            return await super().send(request, **kwargs)
        except _DROPPED as exc:
            request_id = request_id_of(request)
            if request_id is None:
                raise
            return httpx2.Response(200, headers={"content-type": "application/json"},
                                   content=lost_answer(request_id, exc), request=request)
