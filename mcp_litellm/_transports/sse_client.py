"""The client side of the legacy HTTP+SSE transport (2024-11-05), ours in place of the SDK's ``sse_client``.

The SDK's client reads its event stream with httpx2's fixed 1 MiB limit per event and takes no
parameter for it: any message over 1 MiB (a big tool result) ends the whole session, and an event
nested too deeply is lost, leaving its call to wait for its timeout. This one reads events with
:class:`~.framing.EventFramer` under ``max_message_size``: an event over the limit fails the call
it answers, as soon as it passes the limit when its id comes first (else when it ends: TypeScript-SDK
servers write the id last), and the rest of it is dropped as it arrives; a message that cannot be
parsed fails its call the same way (:func:`~.messages.read_message`). Either way the session goes
on, unless one event grows past four times the limit (a compression bomb): then the stream is
closed, and the next call opens a new session. Everything else is as in the SDK: the redirect rules
(``stream_within_origin``), the endpoint's origin check, and each POST sent in the context of the
task that sent the message (so per-request context variables reach its HTTP hooks).

The upstream fix would be a ``max_message_size``/``max_sse_event_size`` parameter on ``sse_client``
passed to ``sse_within_origin`` (as ``streamable_http_client`` has), plus an event reader that skips
an oversized event instead of ending the stream.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urljoin, urlparse

import anyio
import httpx2
from anyio.abc import TaskStatus
from mcp.shared._context_streams import ContextReceiveStream, create_context_streams
from mcp.shared._httpx_utils import request_within_origin, stream_within_origin
from mcp.shared.message import SessionMessage

from mcp_litellm._transports.error_body import read_error_body
from mcp_litellm._transports.wire.framing import EventFramer, Oversized
from mcp_litellm._transports.wire.messages import Unreadable, fail_oversized, leading_id, oversized_id, read_message

logger = logging.getLogger("mcp_litellm.sse")

_SSE_HEADERS = {"Accept": "text/event-stream", "Cache-Control": "no-store"}
_GIVE_UP = 4
"""An oversized event is skipped (read and dropped) up to this many times ``max_message_size``; past that
(a compression bomb, an endless event) the stream is closed rather than inflated for minutes, and the
session with it: the next call opens a new one."""


@asynccontextmanager
async def sse_streams(url: str, client: httpx2.AsyncClient, *, limit: int,
                      label: str = "server") -> AsyncIterator[tuple[Any, Any]]:
    """Open the event stream at ``url`` with ``client``; yield the session's ``(read, write)`` streams."""
    async with stream_within_origin(client, "GET", url, headers=_SSE_HEADERS) as response:
        if response.status_code >= 400:
            await read_error_body(response)  # the server's reason, quoted by the error (see _client.session.failures)
        response.raise_for_status()
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if content_type != "text/event-stream":
            raise httpx2.SSEError(f"Expected response with content type 'text/event-stream', got {content_type!r}.")
        read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_receive = create_context_streams[SessionMessage](0)
        async with read_send, read_receive, write_send, write_receive, anyio.create_task_group() as tasks:
            reader = _Reader(url, label, limit, read_send)
            endpoint = await tasks.start(reader.run, response)
            tasks.start_soon(_post_messages, client, endpoint, write_receive)
            try:
                yield read_receive, write_send
            finally:
                tasks.cancel_scope.cancel()


class _Reader:
    def __init__(self, url: str, label: str, limit: int, out: Any) -> None:
        self.url, self.label, self.limit, self.out = url, label, limit, out
        self._failed: set[int | str] = set()  # calls failed early for an event that has not ended yet

    async def run(self, response: httpx2.Response, *, task_status: TaskStatus[str] = anyio.TASK_STATUS_IGNORED) -> None:
        framer = EventFramer(self.limit)
        started = False
        try:
            async with self.out:
                async for chunk in response.aiter_bytes():
                    for name, data in framer.feed(chunk):
                        if name == "endpoint" and not started and isinstance(data, bytes):
                            task_status.started(self._endpoint(data.decode("utf-8", "replace")))
                            started = True
                        elif name == "message" and started:
                            message = self._message(data)
                            if message is not None:
                                await self.out.send(message)
                        elif name not in ("endpoint", "message"):
                            logger.warning("server %r sent an unknown SSE event %r; ignored it", self.label, name)
                    if framer.dropping > _GIVE_UP * self.limit:
                        logger.warning("server %r is sending a message of more than %d bytes (%d times "
                                       "max_message_size); closing its SSE stream: the next call reconnects",
                                       self.label, framer.dropping, _GIVE_UP)
                        return
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the session is gone
        except httpx2.HTTPError:
            if not started:
                raise
            logger.debug("server %r: the SSE stream broke", self.label, exc_info=True)
        if not started:
            raise httpx2.SSEError("the SSE stream ended before the server sent its endpoint")

    def _endpoint(self, path: str) -> str:
        endpoint = urljoin(self.url, path)
        ours, theirs = urlparse(self.url), urlparse(endpoint)
        if (ours.scheme, ours.netloc) != (theirs.scheme, theirs.netloc):
            raise ValueError(f"Endpoint origin does not match connection origin: {endpoint}")
        return endpoint

    def _message(self, data: bytes | Oversized) -> SessionMessage | None:
        if isinstance(data, Oversized):
            return self._oversized(data)
        if not data.strip():
            return None  # a keep-alive
        text = data.decode("utf-8", "replace")
        message = read_message(text)
        if not isinstance(message, Unreadable):
            return message
        if message.answer is None:
            logger.warning("server %r sent an SSE message that is %s; ignored it: %.80r", self.label,
                           message.reason, text)
        else:
            logger.warning("server %r answered request %r with %s: %.120r", self.label, message.request_id,
                           message.reason, text)
        return message.answer


    def _oversized(self, data: Oversized) -> SessionMessage | None:
        # reported twice: as soon as it passed the limit (fail its call now if its id comes first),
        # and when it ended (its id may come last, as TypeScript-SDK servers write it)
        request_id = oversized_id(data.head, data.tail) if data.complete else leading_id(data.head)
        if request_id is None and not data.complete:
            return None
        if request_id in self._failed:
            self._failed.discard(request_id)
            return None
        if request_id is not None and not data.complete:
            self._failed.add(request_id)
        return fail_oversized(logger, self.label, self.limit, data.size, request_id, partial=not data.complete)


async def _post_messages(client: httpx2.AsyncClient, endpoint: str,
                         messages: ContextReceiveStream[SessionMessage]) -> None:
    """POST each message to the endpoint, in the context of the task that sent it, one at a time."""

    async def post(message: SessionMessage) -> None:
        response = await request_within_origin(
            client, "POST", endpoint,
            json=message.message.model_dump(by_alias=True, mode="json", exclude_unset=True))
        response.raise_for_status()

    try:
        async with messages:
            async for message in messages:
                async with anyio.create_task_group() as tasks:
                    context = messages.last_context
                    if context is None:  # pragma: no cover - every sender has a context
                        tasks.start_soon(post, message)
                    else:
                        context.run(tasks.start_soon, post, message)
    except Exception:
        logger.debug("the SSE message writer stopped", exc_info=True)


__all__ = ["sse_streams"]
