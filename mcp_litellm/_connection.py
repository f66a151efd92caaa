"""One live MCP session, opened and closed by a single owner task on the background loop.

The owner task enters the transport and ``mcp.Client`` and then waits for a stop request, so the
anyio cancel scopes are always entered and exited by the same task, whoever asks for the close.
Every request goes through :meth:`Connection.request`, which applies the timeout and translates
SDK and transport failures into mcp_litellm's exceptions in one place.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import httpx2
import mcp
from mcp import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from pydantic import ValidationError

from mcp_litellm._errors import ConfigError, MCPLiteLLMError, ServerError, TimeoutError, TransportError
from mcp_litellm._loop import get_loop
from mcp_litellm._transports import open_transport
from mcp_litellm._transports._stdio import server_label

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup

T = TypeVar("T")
logger = logging.getLogger("mcp_litellm")

_CLOSE_GRACE = 10.0
"""Seconds the owner task gets to shut the session down before it is cancelled."""


@dataclass
class SessionOptions:
    """What ``mcp.Client`` is built with; callbacks left ``None`` are not advertised."""

    protocol: str = "auto"
    sampling_callback: Any = None
    sampling_capabilities: Any = None
    elicitation_callback: Any = None
    list_roots_callback: Any = None
    logging_callback: Any = None
    message_handler: Any = None
    log_level: Any = None
    client_info: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


class _WatchedReadStream:
    """Delegates to the transport's read stream and reports when it ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._on_end()
            raise

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        result: bool | None = await self._inner.__aexit__(*exc)
        return result


@asynccontextmanager
async def _watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[Any]:
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_end), write_stream


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def translate(exc: BaseException, *, server: str, method: str, timeout: float | None) -> MCPLiteLLMError | None:
    """Map an SDK or transport exception to ours; ``None`` when it is not ours to translate."""
    if isinstance(exc, MCPLiteLLMError):
        return exc
    if isinstance(exc, MCPError):
        if exc.code == CONNECTION_CLOSED:
            return TransportError(f"the connection to server {server!r} closed during {method}")
        if exc.code == REQUEST_TIMEOUT:
            return TimeoutError(f"{method} on server {server!r} timed out after {timeout}s; it was cancelled")
        return ServerError(exc.code, exc.message, exc.data, method=method)
    if isinstance(exc, builtins.TimeoutError):
        return TimeoutError(f"{method} on server {server!r} timed out after {timeout}s; it was cancelled")
    if isinstance(exc, httpx2.HTTPStatusError):
        return TransportError(
            f"server {server!r} answered HTTP {exc.response.status_code} during {method}"
        )
    if isinstance(exc, httpx2.HTTPError | OSError | anyio.BrokenResourceError | anyio.ClosedResourceError):
        return TransportError(f"transport failure talking to server {server!r} during {method}: {_describe(exc)}")
    if isinstance(exc, ValidationError):
        return ServerError(-32603, f"server {server!r} sent a malformed {method} result: {exc}", method=method)
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            mapped = translate(inner, server=server, method=method, timeout=timeout)
            if mapped is not None:
                return mapped
    return None


class Connection:
    """A started session. Create with :meth:`open`; it is alive until closed or the peer goes away."""

    def __init__(self, name: str, transport_type: str, config: Mapping[str, Any], options: SessionOptions) -> None:
        self.name = name
        self._target = open_transport(transport_type, config)  # validates config now, before any I/O
        self._transport_type = transport_type
        self._options = options
        self._client: mcp.Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._error: BaseException | None = None
        self._alive = False
        self._task: asyncio.Task[None] | None = None

    # -- lifecycle (all of these run on the background loop) ---------------------------------------

    async def open(self, timeout: float | None) -> None:
        """Start the owner task and wait until the handshake finished or failed."""
        assert asyncio.get_running_loop() is get_loop()
        self._task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp-litellm:{self.name}")
        try:
            with anyio.fail_after(timeout):
                await self._ready.wait()
        except builtins.TimeoutError:
            await self.close()
            raise TimeoutError(
                f"server {self.name!r} did not finish connecting within {timeout}s; check the command/url "
                "and the server's log (logger 'mcp_litellm.server'), or raise request_timeout"
            ) from None
        except BaseException:
            await self.close()
            raise
        if self._error is not None:
            error = self._error
            raise self._start_error(error) from error

    def _start_error(self, error: BaseException) -> MCPLiteLLMError:
        if isinstance(error, MCPLiteLLMError):
            return error
        if isinstance(error, FileNotFoundError):
            return TransportError(
                f"could not start server {self.name!r}: command not found ({error.filename or error}); "
                "check 'command' in its config and that it is installed and on PATH"
            )
        mapped = translate(error, server=self.name, method="initialize", timeout=None)
        if isinstance(mapped, TransportError | TimeoutError):
            return TransportError(f"could not connect to server {self.name!r}: {mapped}")
        if mapped is not None:
            return TransportError(f"server {self.name!r} failed the MCP handshake: {mapped}")
        return TransportError(f"could not connect to server {self.name!r}: {_describe(error)}")

    def _mark_dead(self) -> None:
        if self._alive:
            logger.info("connection to server %r ended", self.name)
        self._alive = False
        self._stop.set()

    async def _own(self) -> None:
        server_label.set(self.name)
        options = self._options
        target = self._target
        if not _is_server_object(target):

            def on_end() -> None:
                get_loop().call_soon_threadsafe(self._mark_dead)

            target = _watched(target, on_end)
        try:
            client = mcp.Client(
                target,
                mode=options.protocol,
                sampling_callback=options.sampling_callback,
                sampling_capabilities=options.sampling_capabilities,
                elicitation_callback=options.elicitation_callback,
                list_roots_callback=options.list_roots_callback,
                logging_callback=options.logging_callback,
                message_handler=options.message_handler,
                log_level=options.log_level,
                client_info=options.client_info,
                cache=None,
                **options.extra,
            )
            async with client:
                self._client = client
                self._alive = True
                self._ready.set()
                await self._stop.wait()
                self._alive = False
        except BaseException as exc:  # the owner task records every failure; nothing escapes it
            self._error = exc
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self._alive = False
            self._client = None
            self._ready.set()
            self._closed.set()

    async def close(self) -> None:
        """Ask the owner task to leave the session, and wait (bounded) until it did."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if not self._ready.is_set():
            # Still connecting (e.g. a server that never answers the handshake): the owner task cannot
            # see the stop request until the handshake ends, so cancel it; transport clean-up is shielded.
            task.cancel()
            with anyio.move_on_after(_CLOSE_GRACE):
                await asyncio.gather(task, return_exceptions=True)
            return
        try:
            with anyio.fail_after(_CLOSE_GRACE):
                await asyncio.shield(self._closed.wait())
        except builtins.TimeoutError:
            logger.warning("server %r did not shut down within %ss; cancelling", self.name, _CLOSE_GRACE)
            task.cancel()
            with anyio.move_on_after(_CLOSE_GRACE):
                await asyncio.gather(task, return_exceptions=True)

    # -- state ---------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        """True while the session is usable."""
        return self._alive and not self._stop.is_set()

    @property
    def client(self) -> mcp.Client:
        """The SDK client; raises ``TransportError`` when the session is gone."""
        client = self._client
        if client is None or not self.alive:
            raise TransportError(
                f"server {self.name!r} is not connected (it stopped or its connection was lost); "
                "call restart() to reconnect"
            )
        return client

    # -- requests ------------------------------------------------------------------------------------

    async def request(self, method: str, call: Callable[[mcp.Client], Awaitable[T]], timeout: float | None) -> T:
        """Run ``call(client)`` with ``timeout`` and translate failures. Runs on the background loop."""
        client = self.client
        try:
            with anyio.fail_after(timeout):
                return await call(client)
        except BaseException as exc:
            mapped = translate(exc, server=self.name, method=method, timeout=timeout)
            if mapped is None or mapped is exc:
                raise
            if isinstance(mapped, TransportError):
                self._mark_dead()
            raise mapped from exc


def _is_server_object(target: Any) -> bool:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

    return isinstance(target, MCPServer | Server)


__all__ = ["ConfigError", "Connection", "SessionOptions", "translate"]
