"""Cancellations of a streamable HTTP session, sent beside its other messages instead of before them.

When a request times out (or its caller gives up), the SDK sends ``notifications/cancelled``. On a
2025-era session that is a POST of its own, and the SDK's writer POSTs notifications one at a time,
waiting for each answer before it sends the next message: a server slow to acknowledge the
cancellation (busy with the very work being cancelled) held back every request made after the one
that timed out, so the next call waited behind it, past its own timeout. Here such a cancellation is
POSTed by a task of its own, on the same HTTP client (headers, auth, session id and protocol version
as the SDK sends them), bounded by :data:`CANCEL_POST_TIMEOUT`; failures are logged at DEBUG, as the
notification is a courtesy. On a 2026-era session the SDK cancels by closing the request's stream,
with no POST, so the message goes to the SDK as it is.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import httpx2
from anyio.abc import TaskGroup
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCNotification

from mcp_litellm._core.protocol import is_modern
from mcp_litellm._transports.observer import http_observer
from mcp_litellm._transports.stream_wrapper import StreamWrapper

__all__ = ["CANCEL_POST_TIMEOUT", "CancelLane", "SessionHeaders"]

logger = logging.getLogger("mcp_litellm")

CANCEL_POST_TIMEOUT = 5.0
"""Seconds a cancellation's POST may take (the SDK's own bound for it)."""

_SESSION_ID = "mcp-session-id"
_VERSION = "mcp-protocol-version"


class SessionHeaders:
    """The session id and protocol version the SDK last sent (an HTTP client's request hook reads them)."""

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}

    async def __call__(self, request: httpx2.Request) -> None:
        if request.method != "POST":
            return
        for name in (_SESSION_ID, _VERSION):
            value = request.headers.get(name)
            if value is not None:
                self.headers[name] = value


class CancelLane(StreamWrapper):
    """The write stream handed to the SDK's session: ``notifications/cancelled`` of a 2025-era session is
    POSTed by a task of ``tasks``; every other message goes to the transport's own stream ``inner``."""

    def __init__(self, inner: Any, http: httpx2.AsyncClient, url: str, session: SessionHeaders,
                 tasks: TaskGroup) -> None:
        super().__init__(inner)
        self._http, self._url, self._session, self._tasks = http, url, session, tasks

    async def send(self, item: SessionMessage) -> None:
        message = item.message
        if (isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled"
                and not is_modern(self._session.headers.get(_VERSION))):
            self._tasks.start_soon(self._post, message)
            return
        await self._inner.send(item)

    async def _post(self, message: JSONRPCNotification) -> None:
        http_observer.set(None)  # the cancelled request's observer saw that request's answers; not this one's
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
                   **self._session.headers}
        with anyio.move_on_after(CANCEL_POST_TIMEOUT) as scope:
            try:
                response = await self._http.post(
                    self._url, json=message.model_dump(by_alias=True, mode="json", exclude_unset=True),
                    headers=headers)
                await response.aclose()
            except (httpx2.HTTPError, OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
                logger.debug("the cancellation POST failed: %s", type(exc).__name__)
        if scope.cancelled_caught:
            logger.debug("the cancellation POST got no answer within %ss", CANCEL_POST_TIMEOUT)
