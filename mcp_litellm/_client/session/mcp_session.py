"""One MCP session on one freshly opened transport (``_Session``), with what ``mcp.Client`` is built from
(``SessionOptions``).

An owner task enters the transport and ``mcp.Client`` and then waits for a stop request, so the anyio
cancel scopes are always entered and exited by the same task, whoever asks for the close. The transport's
read stream is watched: when it ends (the process exited, the HTTP transport failed) the session is marked
dead. :class:`~mcp_litellm._client.session.connection.Connection` owns one ``_Session`` at a time and replaces it
when the server forgot it or its connection was lost.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import mcp
import mcp_types
from mcp.client.session import ElicitationFnT, ListRootsFnT, LoggingFnT, MessageHandlerFnT, SamplingFnT
from mcp.shared.exceptions import MCPDeprecationWarning

from mcp_litellm._client.session.era import refused_after_probe
from mcp_litellm._client.session.failures import (
    name_the_request,
    start_error,
)
from mcp_litellm._core.errors import (
    MCPLiteLLMError,
    RequestTimeoutError,
    TransportError,
    reason,
)
from mcp_litellm._core.protocol import is_modern
from mcp_litellm._core.redact import redact_chain
from mcp_litellm._core.sdk_compat import negotiated_version
from mcp_litellm._transports import ExitReport, Transport
from mcp_litellm._transports.http import HttpObserver, http_observer
from mcp_litellm._transports.stream_wrapper import StreamWrapper

T = TypeVar("T")
logger = logging.getLogger("mcp_litellm")


def legacy_call(make: Callable[[], Awaitable[T]]) -> Awaitable[T]:
    """``make()``, a call of a 2025-era method of the SDK's session (log level, subscriptions, roots).

    The SDK marks these deprecated as of 2026-07-28 and warns when they are called; we call them only
    on 2025-era connections, so the warning would only puzzle our users. Call the session's method,
    not ``mcp.Client``'s wrapper, which is deprecated too and calls it again when awaited.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        return make()
_CLOSE_GRACE = 10.0
"""Seconds the owner task gets to shut the session down before it is cancelled."""


@dataclass
class SessionOptions:
    """What ``mcp.Client`` is built with; callbacks left ``None`` are not advertised."""

    protocol: str = "auto"
    sampling_callback: SamplingFnT | None = None
    sampling_capabilities: mcp_types.SamplingCapability | None = None
    elicitation_callback: ElicitationFnT | None = None
    list_roots_callback: ListRootsFnT | None = None
    logging_callback: LoggingFnT | None = None
    message_handler: MessageHandlerFnT | None = None
    log_level: Any = None
    client_info: mcp_types.Implementation | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class _WatchedReadStream(StreamWrapper):
    """Delegates to the transport's read stream and reports when it ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        super().__init__(inner)
        self._on_end = on_end

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


@asynccontextmanager
async def _watched(transport: Any, on_end: Callable[[], None]) -> AsyncIterator[Any]:
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, on_end), write_stream


class _Session:
    """One ``mcp.Client`` on one freshly opened transport, entered and left by its own owner task."""

    def __init__(self, name: str, transport: Transport, options: SessionOptions) -> None:
        self.name = name
        self._exit_report = ExitReport()
        self._target = transport.open(self._exit_report)  # validates the config, before any I/O
        self._url = transport.url
        self._options = options
        self._client: mcp.Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._error: BaseException | None = None
        self._alive = False
        self.modern = False
        """Whether the session speaks a 2026-era protocol (set once the handshake is done)."""
        self._task: asyncio.Task[None] | None = None
        self._handshake = HttpObserver()
        self._in_flight = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def open(self, timeout: float | None) -> None:
        """Start the owner task and wait until the handshake finished or failed (errors name the server)."""
        try:
            await self._open(timeout)
        except MCPLiteLLMError as exc:
            name_the_request(exc, self.name, None)
            raise

    async def _open(self, timeout: float | None) -> None:
        self._task = asyncio.get_running_loop().create_task(self._own(), name=f"mcp-litellm:{self.name}")
        try:
            with anyio.fail_after(timeout) as deadline:
                self._handshake.deadline = deadline  # OAuth suspends it while a person authorizes
                await self._ready.wait()
        except builtins.TimeoutError:
            await self.close()
            raise RequestTimeoutError(
                f"server {self.name!r} did not finish connecting within {timeout}s; check the command/url "
                "and the server's log (logger 'mcp_litellm.server'), or raise request_timeout"
            ) from None
        except BaseException:
            await self.close()
            raise
        if self._error is not None:
            error = self._error
            redact_chain(error)
            raise self._start_error(error) from reason(error)

    def refused_after_probe(self) -> bool:
        """Whether the connect failed because the server answered the era probe or the handshake after it
        with a JSON-RPC error (see ``era``); not for in-process servers."""
        return not _is_server_object(self._target) and refused_after_probe(self._error, self._handshake)

    def _start_error(self, error: BaseException) -> MCPLiteLLMError:
        return start_error(error, server=self.name, url=self._url, handshake=self._handshake, report=self._exit_report)

    def mark_dead(self) -> None:
        if self._alive:
            logger.info("connection to server %r ended", self.name)
        self._alive = False
        self._stop.set()

    async def _own(self) -> None:
        http_observer.set(self._handshake)
        options = self._options
        target = self._target
        if not _is_server_object(target):
            loop = asyncio.get_running_loop()

            def on_end() -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(self.mark_dead)

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
                self.modern = is_modern(negotiated_version(client.session))
                self._alive = not self._stop.is_set()  # a close() during the handshake wins
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
        self._alive = False
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

    def begin_request(self) -> None:
        self._in_flight += 1
        self._idle.clear()

    def end_request(self) -> None:
        self._in_flight -= 1
        if self._in_flight == 0:
            self._idle.set()

    async def retire(self, grace: float) -> None:
        """Close once the requests still running on this session have settled (at most ``grace`` seconds)."""
        with anyio.move_on_after(grace):
            await self._idle.wait()
        await self.close()

    @property
    def alive(self) -> bool:
        """False from the moment the session is asked to stop (``close``, ``mark_dead``) or its owner task
        leaves it; kept as one flag, since every request reads it several times."""
        return self._alive

    @property
    def client(self) -> mcp.Client:
        client = self._client
        if client is None or not self._alive:
            raise TransportError(
                f"server {self.name!r} is not connected (it stopped or its connection was lost); "
                "call restart() to reconnect"
            )
        return client

def _is_server_object(target: Any) -> bool:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

    return isinstance(target, MCPServer | Server)


__all__ = ["SessionOptions", "legacy_call"]
