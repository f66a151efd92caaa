"""One retry of a tool call that failed only because the HTTP connection dropped.

A call of a tool its server marks ``readOnlyHint`` or ``idempotentHint`` (tool annotations) that failed
because its answer was cut off (``AnswerLost``) or because the connection was lost (the server went away
or restarted, so the session is renewed on the way) is run once more, on the same session or the renewed
one, within what is left of the call's deadline; with no time left it is not retried. Any other tool is
never retried: the server may have run it already. ``retry_idempotent=False`` on the client (or in its
config entry) turns this off. A retry is logged at WARNING naming the server and the tool, and recorded
on the call's span (event ``mcp_litellm.retry`` with ``mcp_litellm.retry.reason`` ``"answer_lost"`` or
``"connection_lost"`` and ``mcp_litellm.retry.time_left_s``; attribute ``mcp_litellm.tool.retries``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._client.session.connection import Connection
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.failures import AnswerLost
from mcp_litellm._core import telemetry
from mcp_litellm._core.errors import TransportError

logger = logging.getLogger("mcp_litellm")
T = TypeVar("T")

__all__ = ["call_retrying", "retries"]


def retries(tool: Tool) -> bool:
    """Whether a call of ``tool`` may be run again after a dropped connection: its server says it is
    read-only or idempotent."""
    annotations = tool.annotations
    return bool(annotations.read_only_hint or annotations.idempotent_hint)


def _dropped(exc: TransportError, connection: Connection, was_alive: bool) -> bool:
    """Whether the call failed because its HTTP connection dropped while it ran: its answer was cut off, or
    the live session's transport failed (no HTTP status: nothing the server said). A call that failed as
    reconnecting a session lost earlier failed is not one: it never reached the server."""
    if not connection.reconnects:
        return False
    return isinstance(exc, AnswerLost) or (was_alive and exc.http_status is None)


async def call_retrying(attempt: Callable[[Deadline], Awaitable[T]], deadline: Deadline, *, tool: Tool,
                        connection: Connection, enabled: bool) -> T:
    """``attempt(deadline)``, and once more (with what is left of the same deadline) when it failed only
    because the connection dropped and ``tool`` may be retried (``enabled``: the client's
    ``retry_idempotent``)."""
    if not enabled or not retries(tool):
        return await attempt(deadline)
    was_alive = connection.alive
    try:
        return await attempt(deadline)
    except TransportError as exc:
        if not _dropped(exc, connection, was_alive):
            raise
        server = connection.name
        left = deadline.remaining()
        if left <= 0:
            logger.info("server %r: tool %r failed as the connection dropped; not retried, no time is left of "
                        "its %ss deadline", server, tool.mcp_name, deadline.timeout)
            raise
        kind = "read-only" if tool.annotations.read_only_hint else "idempotent"
        logger.warning("server %r: retrying the %s tool %r once, as the connection dropped during the call (%s)",
                       server, kind, tool.mcp_name, exc)
        span = telemetry.current_span()
        if span.is_recording():
            reason = "answer_lost" if isinstance(exc, AnswerLost) else "connection_lost"
            span.add_event("mcp_litellm.retry", {"mcp_litellm.retry.reason": reason,
                                                 "mcp_litellm.retry.time_left_s": round(left, 3)})
            span.set_attribute("mcp_litellm.tool.retries", 1)
        return await attempt(deadline)
