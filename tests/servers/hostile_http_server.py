"""A hostile MCP server over HTTP for the message-size tests: raw JSON-RPC in a small ASGI app, no SDK.

Serve :func:`build_app` with uvicorn on 127.0.0.1. It speaks just enough MCP (2025 era, stateless) to
answer the handshake, ``ping``, ``tools/list`` and ``tools/call`` of one tool ``run(kind, size)``:

- ``kind="ok"``: a short text result (``"ran"``).
- ``kind="big"``: one text block of ``size`` bytes (``"z" * size``).
- ``kind="deep"``: a result with a value nested ``size`` levels deep (``[[[...]]]``).
- ``kind="bomb"``: a text block of ``size`` bytes of ``"0"``, sent gzip-compressed (about 1/1000 of
  its size on the wire): a compression bomb. It is made by repeating one compressed block, so even a
  1.5 GB bomb costs the server a few milliseconds and about 1.5 MB.

Paths: ``/json/mcp`` (streamable HTTP, ``application/json`` answers), ``/sse/mcp`` (streamable HTTP,
each answer one ``text/event-stream`` event) and ``/legacy/sse`` + ``/legacy/messages`` (the 2024-11-05
HTTP+SSE transport; with ``?gzip=1`` on the stream's URL the whole stream is gzip-compressed, so a
bomb can be sent on it too).
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any

TOOL = {"name": "run", "description": "Misbehave.", "inputSchema": {
    "type": "object", "properties": {"kind": {"type": "string"}, "size": {"type": "integer"}}}}
_BLOCK_BYTES = 1 << 20
_FILLER = b"0" * _BLOCK_BYTES


def _message(rid: Any, result: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()


def _answer(request: dict[str, Any]) -> bytes | tuple[bytes, int, bytes] | None:
    """The answer to one request: bytes, or ``(head, filler bytes, tail)`` for a bomb; None for a notification."""
    method, rid, params = request.get("method"), request.get("id"), request.get("params") or {}
    if rid is None:
        return None
    if method == "initialize":
        return _message(rid, {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                              "capabilities": {"tools": {}}, "serverInfo": {"name": "hostile-http", "version": "0"}})
    if method == "ping":
        return _message(rid, {})
    if method == "tools/list":
        return _message(rid, {"tools": [TOOL]})
    if method != "tools/call":
        return json.dumps({"jsonrpc": "2.0", "id": rid,
                           "error": {"code": -32601, "message": f"Method not found: {method}"}}).encode()
    args = params.get("arguments") or {}
    kind, size = args.get("kind", "ok"), int(args.get("size", 0))
    if kind == "big":
        return _message(rid, {"content": [{"type": "text", "text": "z" * size}]})
    if kind == "deep":
        head = _message(rid, {"content": [{"type": "text", "text": "deep"}], "deep": None})[:-len(b"null}}")]
        return head + b"[" * size + b"]" * size + b"}}"
    if kind == "bomb":
        head = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": ""}]}})
        cut = head.index('"text": ""') + len('"text": "')
        return head[:cut].encode(), size, head[cut:].encode()
    return _message(rid, {"content": [{"type": "text", "text": "ran"}]})


@functools.lru_cache(maxsize=1)
def _compressed_block() -> bytes:
    """``_FILLER`` deflated from a fresh state and byte-aligned: what any gzip stream right after a full
    flush (which resets the compressor) would produce for it, so it can be repeated at no cost."""
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return z.compress(_FILLER) + z.flush(zlib.Z_FULL_FLUSH)


@functools.lru_cache(maxsize=8)
def _crc_of_blocks(crc: int, blocks: int) -> int:
    for _ in range(blocks):
        crc = zlib.crc32(_FILLER, crc)
    return crc


class _Gzip:
    """A gzip stream written piece by piece; ``filler(n)`` adds ``n`` bytes of ``"0"`` at almost no cost.

    zlib's own trailer counts only what it compressed itself, so the trailer is rewritten at the end;
    its CRC is computed only then (a client that stops reading early never costs the server that)."""

    def __init__(self) -> None:
        self._z = zlib.compressobj(9, zlib.DEFLATED, 31)
        self._parts: list[bytes | int] = []  # data written, or a count of filler blocks

    def write(self, data: bytes) -> bytes:
        self._parts.append(data)
        return self._z.compress(data) + self._z.flush(zlib.Z_FULL_FLUSH)

    async def filler(self, size: int) -> AsyncIterator[bytes]:
        """Compressed ``"0" * size`` (repeated 1 MiB blocks, then the rest), in pieces of about 64 KiB."""
        blocks, rest = divmod(size, _BLOCK_BYTES)
        block = _compressed_block()
        self._parts.append(blocks)
        batch = max(1, 65536 // len(block))
        while blocks:
            n = min(batch, blocks)
            yield block * n
            blocks -= n
            await asyncio.sleep(0)
        if rest:
            yield self.write(_FILLER[:rest])

    def close(self) -> bytes:
        """The end of the stream, with a trailer for everything written."""
        crc = size = 0
        for part in self._parts:
            if isinstance(part, int):
                crc, size = _crc_of_blocks(crc, part), size + part * _BLOCK_BYTES
            else:
                crc, size = zlib.crc32(part, crc), size + len(part)
        tail = self._z.flush(zlib.Z_FINISH)
        return tail[:-8] + crc.to_bytes(4, "little") + (size & 0xFFFFFFFF).to_bytes(4, "little")


Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]


async def _body(receive: Receive) -> bytes:
    body, more = b"", True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    return body


async def _send_all(send: Send, status: int, headers: list[tuple[bytes, bytes]], parts: AsyncIterator[bytes]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    async for part in parts:
        await send({"type": "http.response.body", "body": part, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _one(data: bytes) -> AsyncIterator[bytes]:
    yield data


def _framed(answer: bytes | tuple[bytes, int, bytes], sse: bool, gzip: _Gzip | None) -> AsyncIterator[bytes]:
    """The answer's bytes as sent: as an SSE event when ``sse``, compressed when ``gzip``."""
    before, after = (b"event: message\ndata: ", b"\n\n") if sse else (b"", b"")

    async def parts() -> AsyncIterator[bytes]:
        if isinstance(answer, bytes):
            data = before + answer + after
            yield gzip.write(data) if gzip is not None else data
            return
        head, size, tail = answer
        assert gzip is not None, "a bomb is always compressed"
        yield gzip.write(before + head)
        async for piece in gzip.filler(size):
            yield piece
        yield gzip.write(tail + after)

    return parts()


class HostileHTTP:
    """The ASGI app (see the module's docstring)."""

    def __init__(self) -> None:
        self.legacy: dict[str, asyncio.Queue[bytes | tuple[bytes, int, bytes] | None]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path in ("/json/mcp", "/sse/mcp"):
            await self._streamable(path.startswith("/sse"), method, receive, send)
        elif path == "/legacy/sse" and method == "GET":
            await self._legacy_stream(b"gzip=1" in scope.get("query_string", b""), send)
        elif path == "/legacy/messages" and method == "POST":
            session = scope.get("query_string", b"").decode().partition("session_id=")[2]
            queue = self.legacy.get(session)
            if queue is None:
                await _send_all(send, 404, [], _one(b"no such session"))
                return
            answer = _answer(json.loads(await _body(receive)))
            if answer is not None:
                await queue.put(answer)
            await _send_all(send, 202, [], _one(b"Accepted"))
        else:
            await _send_all(send, 404, [], _one(b"not here"))

    async def _streamable(self, sse: bool, method: str, receive: Receive, send: Send) -> None:
        if method != "POST":
            await _send_all(send, 405, [], _one(b""))
            return
        answer = _answer(json.loads(await _body(receive)))
        if answer is None:
            await _send_all(send, 202, [], _one(b""))
            return
        headers = [(b"content-type", b"text/event-stream" if sse else b"application/json")]
        gzip = None
        if not isinstance(answer, bytes):
            gzip = _Gzip()
            headers.append((b"content-encoding", b"gzip"))

        async def parts() -> AsyncIterator[bytes]:
            async for part in _framed(answer, sse, gzip):
                yield part
            if gzip is not None:
                yield gzip.close()

        await _send_all(send, 200, headers, parts())

    async def _legacy_stream(self, compressed: bool, send: Send) -> None:
        session = uuid.uuid4().hex
        queue: asyncio.Queue[bytes | tuple[bytes, int, bytes] | None] = asyncio.Queue()
        self.legacy[session] = queue
        gzip = _Gzip() if compressed else None
        headers = [(b"content-type", b"text/event-stream")]
        if gzip is not None:
            headers.append((b"content-encoding", b"gzip"))

        async def parts() -> AsyncIterator[bytes]:
            endpoint = f"event: endpoint\ndata: /legacy/messages?session_id={session}\n\n".encode()
            yield gzip.write(endpoint) if gzip is not None else endpoint
            while True:
                answer = await queue.get()
                if answer is None:
                    return
                if not isinstance(answer, bytes) and gzip is None:
                    answer = answer[0] + b"0" * answer[1] + answer[2]
                async for part in _framed(answer, True, gzip):
                    yield part

        try:
            await _send_all(send, 200, headers, parts())
        finally:
            self.legacy.pop(session, None)


def build_app() -> HostileHTTP:
    """A fresh app (legacy SSE sessions are kept per app)."""
    return HostileHTTP()
