"""A TCP relay on 127.0.0.1 in front of an HTTP MCP server that can cut one response in the middle.

It forwards bytes both ways, one HTTP request per TCP connection (it adds ``Connection: close`` to each
request, so a connection's end is its response's end), and records what each request was: its HTTP
method, the ``Mcp-Session-Id`` it named, its JSON-RPC method and tool name, and whether it was cut.

``relay.cut(tool="name")`` dooms the next ``tools/call`` POST for that tool (any tool when ``None``):
the relay reads the server's whole answer first (so the tool surely ran on the server), forwards the
response head and the part of the body before the JSON-RPC result, and then closes both sockets, as a
proxy's idle timeout or a network blip does. Run it in its own thread: ``with CuttingRelay() as relay:``,
then set ``relay.upstream`` to the server's port (``relay.url(path)`` is the relay's address).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_ANSWER_MARKERS = (b'"result"', b'"error"')


@dataclass
class Seen:
    """One request that went through the relay."""

    http_method: str
    session: str | None
    rpc_method: str | None
    tool: str | None
    cut: bool = False


class CuttingRelay:
    """Forwards 127.0.0.1:``port`` to the HTTP server at 127.0.0.1:``upstream``; cuts chosen answers."""

    def __init__(self, upstream: int = 0) -> None:
        self.upstream = upstream
        """The server's port (may be set once the relay listens: pick it after, so the two cannot collide)."""
        self.port = 0
        self.seen: list[Seen] = []
        self._doomed: list[tuple[str | None, Callable[[], object] | None, bool]] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.Server | None = None
        self._thread: threading.Thread | None = None
        self._started = threading.Event()
        self._stopped: asyncio.Event | None = None
        self.cut_done = threading.Event()
        """Set each time an answer was cut."""

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def cut(self, tool: str | None = None, *, before: Callable[[], object] | None = None,
            nothing: bool = False) -> None:
        """Cut the answer to the next ``tools/call`` of ``tool`` (of any tool when ``None``); ``before()``
        runs (in a worker thread) once the whole answer was read from the server, before the cut.
        ``nothing``: forward not even the answer's head (the connection drops before the answer starts)."""
        with self._lock:
            self._doomed.append((tool, before, nothing))
        self.cut_done.clear()

    def sessions(self, rpc_method: str | None = "tools/call") -> list[str | None]:
        """The session ids named by the requests of ``rpc_method`` (every POST when ``None``), in order."""
        return [s.session for s in list(self.seen)
                if s.http_method == "POST" and (rpc_method is None or s.rpc_method == rpc_method)]

    def calls(self, tool: str) -> list[Seen]:
        return [s for s in list(self.seen) if s.rpc_method == "tools/call" and s.tool == tool]

    # -- lifecycle -------------------------------------------------------------------------------

    def __enter__(self) -> CuttingRelay:
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the relay did not start")
        return self

    def __exit__(self, *exc_info: object) -> None:
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout=10)

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._started.set()
        async with server:
            await self._stopped.wait()
            server.close()

    # -- one connection ------------------------------------------------------------------------

    def _dooms(self, seen: Seen) -> tuple[str | None, Callable[[], object] | None, bool] | None:
        if seen.http_method != "POST" or seen.rpc_method != "tools/call":
            return None
        with self._lock:
            for index, doomed in enumerate(self._doomed):
                if doomed[0] is None or doomed[0] == seen.tool:
                    del self._doomed[index]
                    return doomed
        return None

    async def _relay(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_writer: asyncio.StreamWriter | None = None
        try:
            head = await client_reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            http_method = lines[0].split(" ", 1)[0]
            headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            body = await client_reader.readexactly(int(headers.get("content-length", "0") or 0))
            seen = Seen(http_method, headers.get("mcp-session-id"), *_rpc(body))
            doomed = self._dooms(seen)
            seen.cut = doomed is not None
            self.seen.append(seen)
            kept = [line for line in lines[1:] if line and not line.lower().startswith("connection:")]
            forwarded = "\r\n".join([lines[0], *kept, "Connection: close", "", ""]).encode("latin-1")
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
            server_writer.write(forwarded + body)
            await server_writer.drain()
            if doomed is not None:
                await self._cut(server_reader, client_writer, *doomed[1:])
                return
            await _pump_until_either_ends(client_reader, server_reader, client_writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.CancelledError):
            pass  # a peer went away, or the relay is stopping
        finally:
            for writer in (client_writer, server_writer):
                if writer is not None:
                    writer.close()

    async def _cut(self, server_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter,
                   before: Callable[[], object] | None, nothing: bool) -> None:
        answer = b""
        while not any(marker in answer.partition(b"\r\n\r\n")[2] for marker in _ANSWER_MARKERS):
            chunk = await server_reader.read(65536)
            if not chunk:
                break
            answer += chunk
        if before is not None:
            await asyncio.to_thread(before)
        head, _, body = answer.partition(b"\r\n\r\n")
        where = min((body.find(m) for m in _ANSWER_MARKERS if m in body), default=len(body) // 2)
        if not nothing:
            client_writer.write(head + b"\r\n\r\n" + body[:where])
        await client_writer.drain()
        transport = client_writer.transport
        transport.abort()  # a reset, not a clean end: the peer sees the body cut short
        self.cut_done.set()


def _rpc(body: bytes) -> tuple[str | None, str | None]:
    try:
        message: Any = json.loads(body) if body else None
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    params = message.get("params")
    tool = params.get("name") if isinstance(params, dict) and message.get("method") == "tools/call" else None
    return message.get("method"), tool


async def _pump_until_either_ends(client_reader: asyncio.StreamReader, server_reader: asyncio.StreamReader,
                                  client_writer: asyncio.StreamWriter) -> None:
    """Forward the server's answer to the client until the server ends it or the client goes away."""

    async def answer() -> None:
        while chunk := await server_reader.read(65536):
            client_writer.write(chunk)
            await client_writer.drain()

    async def client_gone() -> None:
        while await client_reader.read(65536):
            pass

    tasks = [asyncio.ensure_future(answer()), asyncio.ensure_future(client_gone())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
