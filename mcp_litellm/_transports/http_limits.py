"""``max_message_size`` over HTTP: a bound on every answer, counted after decompression.

- Event streams (``text/event-stream``): the SDK's streamable HTTP client takes the bound per event
  (``max_sse_event_size``) and fails the call whose event passed it with a made-up "connection
  closed" error; :class:`OversizedEventErrors` turns that into the error every transport gives for
  an answer that is too large, so the call fails with a ``ServerError`` and the session goes on.
  Our legacy SSE client (:mod:`.sse_client`) bounds each event itself.
- Every other body (``application/json`` answers, error pages, OAuth metadata) goes through
  :func:`body_bound`'s response hook that reads it, decompressed, up to the limit and no further. A
  body over the limit that answers a JSON-RPC request becomes a JSON-RPC error for that request (the
  SDK then fails that call only); any other such body fails as an ``httpx2.DecodingError``. A body cut
  off before its end fails its call the same way (:mod:`.lost_answers`).

httpx2 inflates a compressed body in pieces of at most 1 MiB, so a compression bomb costs at most the
limit in memory and the time to inflate that much.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2
import mcp_types as types
from mcp.shared.message import SessionMessage

from mcp_litellm._transports.lost_answers import lost_answer, request_id_of
from mcp_litellm._transports.stream_wrapper import StreamWrapper
from mcp_litellm._transports.wire.messages import error_for, too_big

_SDK_EVENT_LIMIT = "Server-sent event exceeded the "
"""How httpx2's ``SSEError`` for an event over the limit starts (the SDK quotes it in its stand-in error)."""


class _BoundedBody(httpx2.AsyncByteStream):
    """A response body, decompressed, read whole up to ``limit`` bytes (see the module's docstring)."""

    def __init__(self, response: httpx2.Response, limit: int, request_id: int | str | None) -> None:
        # a response of our own over the same raw stream decodes it exactly as httpx2 would
        self._decoding = httpx2.Response(response.status_code, headers=response.headers, stream=response.stream,
                                         request=response.request)
        self._limit = limit
        self._request_id = request_id

    async def __aiter__(self) -> AsyncIterator[bytes]:
        parts: list[bytes] = []
        size = 0
        try:
            async for part in self._decoding.aiter_bytes():
                size += len(part)
                if size > self._limit:
                    break
                parts.append(part)
            else:
                yield b"".join(parts)
                return
        except httpx2.TransportError as exc:  # cut off: fail this call, keep the session (see .lost_answers)
            if self._request_id is None:
                raise
            yield lost_answer(self._request_id, exc)
            return
        finally:
            await self._decoding.aclose()
        parts.clear()
        if self._request_id is None:
            raise httpx2.DecodingError(too_big(self._limit), request=self._decoding.request)
        answer = error_for(self._request_id, too_big(self._limit))
        yield answer.message.model_dump_json(by_alias=True, exclude_unset=True).encode()

    async def aclose(self) -> None:
        await self._decoding.aclose()


def body_bound(limit: int) -> Callable[[httpx2.Response], Awaitable[None]]:
    """A response hook that bounds a body that is not an event stream by ``limit`` bytes, decompressed."""

    async def bound_body(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if content_type == "text/event-stream":
            return
        response.stream = _BoundedBody(response, limit, request_id_of(response.request))
        if "content-encoding" in response.headers:
            # the body is handed on decompressed: the response must not decompress it again
            del response.headers["content-encoding"]
            if "content-length" in response.headers:
                del response.headers["content-length"]

    return bound_body


class OversizedEventErrors(StreamWrapper):
    """The streamable HTTP client's read stream, with the SDK's error for an event over the limit (a
    "connection closed" that would drop the session) replaced by the error for an answer too large."""

    def __init__(self, inner: object, limit: int) -> None:
        super().__init__(inner)
        self._limit = limit

    def _mapped(self, item: object) -> object:
        if isinstance(item, SessionMessage) and isinstance(item.message, types.JSONRPCError):
            error = item.message.error
            request_id = item.message.id
            if error.code == types.CONNECTION_CLOSED and _SDK_EVENT_LIMIT in error.message and request_id is not None:
                return error_for(request_id, too_big(self._limit))
        return item

    async def receive(self) -> object:
        return self._mapped(await self._inner.receive())

    def __aiter__(self) -> OversizedEventErrors:
        return self

    async def __anext__(self) -> object:
        return self._mapped(await self._inner.__anext__())
