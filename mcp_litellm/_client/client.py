"""``Client``: one MCP server, usable from sync and async code alike.

Every public blocking method has an ``a``-prefixed async twin. Both run the same coroutine on the
loop the client's session lives on (see ``loop.py``); no behaviour lives only in the sync path.
"""

from __future__ import annotations

import asyncio
import atexit
import builtins
import logging
import os
import threading
import weakref
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
from mcp_types import Implementation, ServerCapabilities

from mcp_litellm._client.apps import UIExtension
from mcp_litellm._client.catalog import CatalogMixin
from mcp_litellm._client.connection import Connection
from mcp_litellm._client.deadline import Deadline
from mcp_litellm._client.features import build_features
from mcp_litellm._client.listing import CatalogCache
from mcp_litellm._client.loop import adopt, adopted_loop, run_async, run_on, run_sync
from mcp_litellm._client.options import client_settings
from mcp_litellm._client.progress import ProgressHandler, Shape
from mcp_litellm._client.roots import Roots
from mcp_litellm._client.session import SessionOptions
from mcp_litellm._client.task_protocol import TasksExtension
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, RequestTimeoutError, TransportError
from mcp_litellm._core.option_checks import closest, positive_seconds
from mcp_litellm._core.redact import forget_secrets, redact_config, shown_value
from mcp_litellm._core.types import NOT_GIVEN, NotGiven, TransportName, given
from mcp_litellm._core.version import VERSION
from mcp_litellm._transports import (
    Transport,
    TransportOptions,
    make_transport,
)
from mcp_litellm._transports.configs import TransportConfig
from mcp_litellm._transports.messages import DEFAULT_MAX_MESSAGE_SIZE

if TYPE_CHECKING:
    import mcp

    from mcp_litellm._client.handler_specs import ElicitationSettings, HandlerSpec, SamplingSettings
    from mcp_litellm._client.handler_types import (
        ApprovalHandlerArg,
        ElicitationArg,
        ElicitationHandlerArg,
        RootsArg,
        SamplingArg,
        SamplingHandlerArg,
    )
    from mcp_litellm._client.notifications import SessionLostHandler
    from mcp_litellm._client.pins import PinStore
    from mcp_litellm._client.tool import Tool
    from mcp_litellm._client.toolset import CallContext
    from mcp_litellm._core.usage import Usage

logger = logging.getLogger("mcp_litellm")

_PROTOCOLS = ("auto", "legacy")
_live_clients: weakref.WeakSet[Client] = weakref.WeakSet()


class Client(CatalogMixin):
    """A connection to one MCP server.

    Args:
        name: a short name for the server; used in logs, errors and (with ``with_prefix``) tool names.
        transport_type: ``"stdio"``, ``"streamable"`` (aliases ``"streamable_http"``, ``"http"``),
            ``"sse"``, ``"memory"``, or a name added with :func:`register_transport`. Left out, it is
            inferred from ``config`` as config files do: ``command`` -> stdio, ``url`` -> streamable HTTP
            (SSE for a path ending in ``/sse``), ``server`` -> memory.
        config: the transport's settings: ``command``/``args``/``env``/``cwd`` for stdio;
            ``url``/``headers``/``timeout``/``auth`` for HTTP; ``server`` for memory. Typed as
            :class:`StdioConfig`, :class:`StreamableConfig`, :class:`SseConfig`, :class:`MemoryConfig`
            (any mapping is accepted); their optional ``transport`` key may stand for ``transport_type``.
        start: connect now. Outside an event loop this blocks until the server is up. Inside a running
            event loop (async code, a notebook cell) it never blocks that loop: the client connects on
            ``async with client``, ``await client.astart()`` or its first call instead. ``False``: connect
            only when :meth:`start`/:meth:`astart` is called.
        request_timeout: seconds each request may take; a per-call ``timeout=`` overrides it. A tool call's
            timeout covers the whole call (the listing that finds the tool, a reconnect, the request).
        reset_timeout_on_progress: each progress notification of a tool call restarts its timeout (as the
            TypeScript SDK's ``resetTimeoutOnProgress``), so a long tool that reports progress is not cut
            off; a per-call ``reset_timeout_on_progress=`` overrides it.
        max_total_timeout: seconds a tool call may take in all, progress or not (``None``: no cap beyond
            the timeout); a per-call ``max_total_timeout=`` overrides it.
        protocol: ``"auto"`` (negotiate 2026-07-28 with servers that speak it, else the classic
            initialize handshake), ``"legacy"`` (always the handshake), or a modern version string.
        with_prefix: name tools ``"{name}__{tool}"`` so several servers never collide.
        max_result_chars: cut tool results longer than this (with a marker saying how much was cut).
        max_message_size: bytes one message from the server may take, on every transport (stdio,
            streamable HTTP, SSE), counted after decompression (default 256 MiB); a larger answer
            fails its own call with a ``ServerError`` naming the limit, and the session goes on.
        sampling: ``True``/``False``, a sampling handler, or a mapping of sampling settings
            (default: ``ml.config.sampling``, off unless configured).
        elicitation: ``True``/``False``, an elicitation handler, or a mapping of settings.
        roots: directories offered to the server as roots (``None``: no roots capability).
        human_in_the_loop: a tool-call approval handler (``on_human_in_the_loop`` is the same option).
        tool_pins: a JSON file (or a pin store) of trusted tool definitions: the first listing pins the
            server's tools; a tool that later differs from its pin, or is new, is withheld
            (:class:`~mcp_litellm.ToolChangedError`) until :meth:`pin_tools` accepts it. ``None``: no pins.
        retry_idempotent: retry once a call of a tool the server marks ``readOnlyHint`` or
            ``idempotentHint`` that failed only because the HTTP connection dropped (its answer was cut
            off, or the server restarted), within the call's timeout; other tools are never retried.
        apps: advertise MCP Apps (extension ``io.modelcontextprotocol/ui``, MIME type
            ``text/html;profile=mcp-app``): the host renders tools' interfaces (see :meth:`read_ui`).
        on_session_lost: ``fn(server, reason)``, called when the client has to start a new MCP session
            (the server forgot the old one, or the connection was lost): see :meth:`on_session_lost`.
    """

    def __init__(
        self,
        name: str,
        transport_type: TransportName | None = None,
        config: TransportConfig | Mapping[str, Any] | None = None,
        *,
        start: bool = True,
        request_timeout: float = 30.0,
        reset_timeout_on_progress: bool = False,
        max_total_timeout: float | None = None,
        protocol: str = "auto",
        with_prefix: bool = False,
        max_result_chars: int | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        sampling: SamplingArg | NotGiven = NOT_GIVEN,
        elicitation: ElicitationArg | NotGiven = NOT_GIVEN,
        roots: RootsArg | NotGiven = NOT_GIVEN,
        human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
        on_human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
        tool_pins: str | os.PathLike[str] | PinStore | None = None,
        retry_idempotent: bool = True,
        on_session_lost: SessionLostHandler | None = None,
        apps: bool = False,
        **unknown: NoReturn,
    ) -> None:
        if unknown:  # type checkers refuse them already; say so at run time too
            raise ConfigError(f"unknown option(s) for client {shown_value(name)}: "
                              + ", ".join(_unknown(option) for option in sorted(unknown)))
        settings = client_settings(name, transport_type, config, {
            "request_timeout": request_timeout, "reset_timeout_on_progress": reset_timeout_on_progress,
            "with_prefix": with_prefix, "max_result_chars": max_result_chars, "max_message_size": max_message_size,
            "retry_idempotent": retry_idempotent, "max_total_timeout": max_total_timeout, "protocol": protocol,
            "apps": apps})
        checked = settings.options
        self.max_total_timeout = checked.max_total_timeout
        self.reset_timeout_on_progress = checked.reset_timeout_on_progress
        self.name = name
        self.transport_type = settings.transport_type
        self.config: Mapping[str, Any] = settings.config
        self.spec = settings.spec
        self.request_timeout = checked.request_timeout
        self.protocol = checked.protocol
        self.with_prefix = with_prefix
        self.max_result_chars = max_result_chars
        self.max_message_size = max_message_size
        self.apps = checked.apps
        self.retry_idempotent = retry_idempotent
        self._catalog_cache = CatalogCache()
        self._progress_handlers: list[tuple[ProgressHandler, Shape]] = []
        self._use_tool_pins(tool_pins)
        self._connection: Connection | None = None
        self._transport: Transport | None = None
        self._state_lock = threading.Lock()
        self._init_notifications()
        if on_session_lost is not None:
            self._register(self._session_lost_handlers, on_session_lost, "on_session_lost")
        options = given(sampling=sampling, elicitation=elicitation, roots=roots, human_in_the_loop=human_in_the_loop,
                        on_human_in_the_loop=on_human_in_the_loop)
        self._features = build_features(self, options)
        self._task_claims = TasksExtension()
        """Finishes tasks a 2026-07-28 server makes of plain tool calls; each call says where their status goes."""
        self._connect_on_first_use = False
        self._retired: str | None = None  # why the owner (a ClientPool) stopped this client for good
        self._start_lock: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None
        if start:
            if _event_loop_running():  # connecting here would block that loop for the whole connect
                self._connect_on_first_use = True
            else:
                self.start()

    def _session_options(self) -> SessionOptions:
        """What the next session is built with: client features, then notifications, add callbacks."""
        info = Implementation(name="mcp-litellm", version=VERSION)
        options = SessionOptions(protocol=self.protocol, client_info=info)
        options.extra["extensions"] = [self._task_claims, *([UIExtension()] if self.apps else [])]
        self._features.add_session_callbacks(options)
        self._add_notification_callbacks(options)
        return options

    def _transport_object(self) -> Transport:
        """This client's transport (made on the first connect and kept, with its auth, for every later one;
        made anew only if ``transport_type`` or ``config`` were replaced since)."""
        options = TransportOptions(server=self.name, max_message_size=self.max_message_size)
        transport = self._transport
        if transport is None or transport.config is not self.config or transport.name != self.transport_type:
            transport = make_transport(self.transport_type, self.config, options)
        self._transport = transport = transport.with_options(options)
        return transport

    def _on_connected(self) -> None:
        """Run on the background loop after a (re)connect: per-session caches start empty."""
        self._invalidate()

    async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any], ctx: CallContext) -> str | None:
        return await self._features.approve_tool_call(tool, arguments, ctx)

    # -- client features -----------------------------------------------------------------------------

    @property
    def sampling_settings(self) -> SamplingSettings:
        """This client's sampling settings (global defaults with its own on top)."""
        return self._features.sampling_settings

    @property
    def elicitation_settings(self) -> ElicitationSettings:
        """This client's elicitation settings (global defaults with its own on top)."""
        return self._features.elicitation_settings

    @property
    def sampling_usage(self) -> Usage:
        """What this server's sampling requests cost: an :class:`~mcp_litellm.Usage` with the completions
        run for them (``requests``), their ``prompt_tokens``/``completion_tokens``, and ``cost`` in USD
        (``litellm.completion_cost``; ``None`` while no completion was priced). Counts from client creation,
        across restarts; a ``max_cost`` sampling setting refuses requests once ``cost`` reaches it."""
        return self._features.sampling_usage

    @property
    def roots(self) -> Roots:
        """The roots this client offers: ``client.roots.paths``, ``.add(path)``, ``.remove(path)``."""
        return self._features.roots

    def on_sampling(self, handler: SamplingHandlerArg | None = None, **options: Any) -> Client:
        """Enable sampling, answered by ``handler`` (a ``SamplingHandler`` class with option
        overrides, or a function ``fn(sample)``; ``None``: the default LiteLLM completion).

        Only records the handler (no I/O: it never blocks, from any thread or event loop). On a running
        client whose session did not advertise sampling, the next request re-initialises the session
        first. Returns the client.
        """
        self._features.on_sampling(handler, options)
        return self

    def on_elicitation(self, handler: ElicitationHandlerArg, **options: Any) -> Client:
        """Enable elicitation, answered by ``handler`` (an ``ElicitationHandler`` class with option
        overrides, or a function ``fn(elicitation)``). Only records the handler (no I/O); the next
        request re-initialises a running session that did not advertise elicitation. Returns the client."""
        self._features.on_elicitation(handler, options)
        return self

    def on_human_in_the_loop(self, handler: ApprovalHandlerArg | None, **options: Any) -> Client:
        """Ask ``handler`` before every tool call of this client (``None`` removes it).

        ``handler`` is a ``HumanInTheLoopHandler`` class (with option overrides) or a function
        ``fn(tool_name, parameters)`` returning ``True`` (run), ``False`` or a reason string (deny).
        A denied call returns the error result "Tool call was denied: <reason>" without contacting
        the server (the reason is "denied by the user" when the handler gave none). Returns the client.
        """
        self._features.on_human_in_the_loop(handler, options)
        return self

    @property
    def approval_handler(self) -> HandlerSpec | None:
        """The tool-call approval handler this client asks (set by :meth:`on_human_in_the_loop`, the option, or
        taken from ``ml.config`` when the client was made), or ``None``: what a chat's hosted server asks too."""
        spec: HandlerSpec | None = self._features.approval_spec
        return spec

    def off_sampling(self) -> Client:
        """Turn sampling off (undoes :meth:`on_sampling` and the ``sampling`` option).

        From now on the server's sampling requests are refused; the next session no longer advertises
        the capability. Returns the client.
        """
        self._features.off_sampling()
        return self

    def off_elicitation(self) -> Client:
        """Turn elicitation off (undoes :meth:`on_elicitation`): requests are refused from now on. Returns the client.
        """
        self._features.off_elicitation()
        return self

    def off_human_in_the_loop(self) -> Client:
        """Remove the tool-call approval handler (undoes :meth:`on_human_in_the_loop`). Returns the client."""
        self._features.on_human_in_the_loop(None, {})
        return self

    # -- lifecycle -----------------------------------------------------------------------------------

    def _lifecycle_lock(self) -> asyncio.Lock:
        """The lock that serialises connects and re-initialisations (one per owner loop)."""
        loop = asyncio.get_running_loop()
        if self._start_lock is None or self._start_lock[0] is not loop:
            self._start_lock = (loop, asyncio.Lock())
        return self._start_lock[1]

    async def _start(self) -> None:
        """Connect, one start at a time (concurrent first calls and ``astart()`` share one connect)."""
        if self._retired is not None:
            raise TransportError(self._retired)
        async with self._lifecycle_lock():
            await self._start_now()
        self._connect_on_first_use = False

    async def _advertise_what_was_registered(self) -> None:
        """Re-initialise a live session that misses a capability registered since it started.

        ``on_sampling``/``on_elicitation`` only record the setting (registration does no I/O, so it
        neither blocks nor raises on any loop); the next request lands here, on the owner loop.
        Concurrent requests share one re-initialisation.
        """
        if not self._features.missing_capabilities():
            return
        async with self._lifecycle_lock():
            missing = self._features.missing_capabilities()
            connection = self._connection
            if not missing or connection is None or not connection.alive:
                return
            logger.info("client %r re-initialises its session to advertise %s", self.name, ", ".join(sorted(missing)))
            await self._stop()
            await self._start_now()

    async def _start_now(self) -> None:
        if self._connection is not None and self._connection.alive:
            return
        if self._connection is not None:
            await self._connection.close()
        connection = Connection(self.name, self._transport_object(), self._session_options())
        connection.on_reinitialised = self._reinitialised
        connection.on_session_lost = self._session_lost
        self._connection = connection
        await connection.open(self.request_timeout)
        _live_clients.add(self)
        self._on_connected()
        await self._after_connect()  # notifications: server log level, listen stream, subscriptions
        logger.debug("connected to server %r (%s, protocol %s)", self.name, self.transport_type,
                     self.protocol_version)

    async def _reinitialised(self) -> None:
        """Run on the background loop when an expired HTTP session was replaced: as after a connect."""
        self._on_connected()
        await self._after_connect()

    async def _stop(self) -> None:
        self._connect_on_first_use = False
        if self._connection is not None and not self._connection.stranded:
            await self._before_stop()  # notifications: stop the listen stream while the session is still up
        connection, self._connection = self._connection, None
        _live_clients.discard(self)
        if connection is not None:
            await connection.close()
        forget_secrets(self._transport)  # its headers', env's and URL's secrets are no longer masked everywhere

    async def _restart(self) -> None:
        await self._stop()
        await self._start()

    def start(self) -> Client:
        """Connect to the server (no-op when already connected). Returns the client."""
        run_sync(self._start(), home=self._session_loop())
        return self

    async def astart(self) -> Client:
        """Async twin of :meth:`start`."""
        await run_async(self._start(), home=self._session_loop())
        return self

    def stop(self) -> None:
        """Close the session; a stdio server process (and what it spawned) is terminated."""
        run_sync(self._stop(), home=self._session_loop())

    async def astop(self) -> None:
        """Async twin of :meth:`stop`."""
        await run_async(self._stop(), home=self._session_loop())

    def restart(self) -> Client:
        """Stop (if needed) and connect again, e.g. after the server process died."""
        run_sync(self._restart(), home=self._session_loop())
        return self

    async def arestart(self) -> Client:
        """Async twin of :meth:`restart`."""
        await run_async(self._restart(), home=self._session_loop())
        return self

    def _in_flight(self) -> int:
        """How many requests are in flight on this client's session now (a pool's test of whether it is in use)."""
        connection = self._connection
        return 0 if connection is None else connection.calls.in_flight

    def _requests_made(self) -> tuple[int, int]:
        """Which connection this client has and how many requests were made on it (a pool's test of whether a
        group it handed over was used since)."""
        connection = self._connection
        return (0, 0) if connection is None else (id(connection), connection.calls.made)

    async def _settled(self) -> None:
        """Return once no request is in flight on this client's session (a pool's drain before it stops one)."""
        connection = self._connection
        if connection is not None and not connection.stranded:
            if connection.loop is not asyncio.get_running_loop():
                await run_on(connection.loop, connection.calls.settled())
            else:
                await connection.calls.settled()

    def is_alive(self) -> bool:
        """True while the session is connected and usable.

        For an HTTP server it is False from a request that found the server unreachable until a later
        request (or :meth:`ping`) reconnected; it does not probe the server itself.
        """
        connection = self._connection
        return connection is not None and connection.alive

    async def _ping(self, timeout: float | None) -> bool:
        if self._connect_on_first_use or self._stranded():  # connect on first use; reconnect on this loop
            try:
                await self._start()
            except MCPLiteLLMError as exc:
                logger.debug("ping to server %r failed: %s", self.name, exc)
                return False
        connection = self._connection
        if connection is None or not (connection.alive or connection.reconnects):
            return False

        async def call(client: mcp.Client) -> Any:
            if connection.modern:
                return await client.session.discover()
            return await client.session.send_ping()

        try:
            await connection.request("ping", call, self._timeout(timeout))
        except MCPLiteLLMError as exc:
            logger.debug("ping to server %r failed: %s", self.name, exc)
            return False
        return True

    def ping(self, *, timeout: float | None = None) -> bool:
        """Check the server answers; True or False, never raises for a dead server.

        A lost HTTP connection is reconnected first (one attempt), as for any other request."""
        return run_sync(self._ping(timeout), home=self._session_loop())

    async def aping(self, *, timeout: float | None = None) -> bool:
        """Async twin of :meth:`ping`."""
        return await run_async(self._ping(timeout), home=self._session_loop())

    def __enter__(self) -> Client:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> Client:
        return await self.astart()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.astop()

    # -- what the server told us -------------------------------------------------------------------

    def _sdk(self) -> mcp.Client:
        return self._require_connection().client

    @property
    def server_info(self) -> Implementation | None:
        """The server's name and version (``None`` if a 2026-era server did not say)."""
        return self._sdk().server_info

    @property
    def capabilities(self) -> ServerCapabilities:
        """The capabilities the server advertised."""
        return self._sdk().server_capabilities

    @property
    def instructions(self) -> str | None:
        """The server's usage instructions, if it sent any."""
        return self._sdk().instructions

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol version, e.g. ``"2025-11-25"`` or ``"2026-07-28"``."""
        return self._sdk().protocol_version

    # -- plumbing for feature modules ---------------------------------------------------------------

    def _timeout(self, timeout: float | None) -> float:
        seconds = positive_seconds(timeout, "timeout", none="for the client's request_timeout", allow_inf=True)
        return self.request_timeout if seconds is None else seconds

    def _stranded(self) -> bool:
        connection = self._connection
        if connection is None or not connection.stranded:
            return False
        logger.info("client %r: the event loop its session ran on has closed; reconnecting", self.name)
        self._connect_on_first_use = True  # calls that come meanwhile wait for that connect too
        return True

    def _require_connection(self) -> Connection:
        connection = self._connection
        if connection is None:
            if self._retired is not None:
                raise TransportError(self._retired)
            if self._connect_on_first_use:
                raise TransportError(
                    f"client {self.name!r} was created inside a running event loop, so it connects on "
                    "'async with client', 'await client.astart()' or its first call; none has happened yet")
            raise TransportError(f"client {self.name!r} is not started; call start() or use 'with client:'")
        return connection

    async def _connected(self, deadline: Deadline | None = None) -> Connection:
        """The connection, after reconnecting it if it was a lost HTTP session (one attempt).

        A client created inside a running event loop connects here, on its first call, and one whose
        session's loop has closed (``asyncio.run`` returned) reconnects here (on the background loop).
        With a call's ``deadline``, all of that happens within what is left of the call's time.
        """
        connection = self._connection
        if (connection is not None and connection.alive and not self._log_level_pending
                and not self._features.missing_capabilities()):
            return connection  # the common case: a live session with nothing to catch up on
        if deadline is None:
            return await self._catch_up(None)
        if deadline.expired:
            raise deadline.error(self.name, "the connection")
        try:
            with anyio.fail_after(deadline.remaining()):
                return await self._catch_up(deadline)
        except builtins.TimeoutError:
            raise deadline.error(self.name, "the connection") from None
        except RequestTimeoutError as exc:
            if deadline.expired:
                raise deadline.error(self.name, "the connection") from exc
            raise

    async def _catch_up(self, deadline: Deadline | None) -> Connection:
        """The slow path of :meth:`_connected`: (re)connect and send what was recorded meanwhile."""
        if self._connect_on_first_use or self._stranded():
            await self._start()
        self._require_connection()
        await self._advertise_what_was_registered()
        connection = self._require_connection()
        await connection.reconnect(self.request_timeout if deadline is None else deadline)
        await self._apply_pending_settings()
        return connection

    def __repr__(self) -> str:
        state = ("alive" if self.is_alive() else
                 "not connected yet" if self._connect_on_first_use else "stopped")
        return (f"Client(name={self.name!r}, transport_type={self.transport_type!r}, "
                f"config={redact_config(self.config)!r}, {state})")


def _event_loop_running() -> bool:
    """True when the calling thread is running an event loop (async code, a notebook cell)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def use_running_loop() -> None:
    """Run every MCP session opened from now on on the calling coroutine's event loop, from any thread.

    Clients started from async code run on their caller's loop already (the default); this makes the
    loop the home of the sessions started from sync code too (other threads, ``start=True`` outside the
    loop), and of groups. Call it from async code, before starting clients (``asyncio.run(main())`` with
    this as the first line of ``main``). Until that loop closes, blocking methods work only from other
    threads (on the loop's own thread they raise, as they would block it); afterwards the background loop
    serves new clients again. Clients running on another loop must be stopped first (``ConfigError``).
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise ConfigError(
            "ml.use_running_loop() must be called from async code (inside the coroutine you pass to "
            "asyncio.run), so there is a running loop to use"
        ) from None
    if adopted_loop() is loop:
        return
    live = sorted(c.name for c in _live_clients if c.is_alive() and c._session_loop() is not loop)
    if live:
        raise ConfigError(
            f"ml.use_running_loop() was called while clients run on another event loop: {', '.join(live)}; "
            "stop them first, or call it before starting any client"
        )
    if adopted_loop() is not None:
        raise ConfigError(
            "ml.use_running_loop() was already called from another event loop that is still open; "
            "only one loop can own the MCP sessions at a time"
        )
    adopt(loop)


@atexit.register
def _stop_all_at_exit() -> None:
    for live in list(_live_clients):  # one on a loop left open but idle is stopped on it (run_sync)
        try:
            live.stop()
        except Exception:  # pragma: no cover - best effort at interpreter exit
            logger.debug("stopping %r at exit failed", live, exc_info=True)


def _unknown(option: str) -> str:
    """An unknown option of ``Client``, with the one it most likely misspells."""
    import inspect

    known = [name for name, p in inspect.signature(Client.__init__).parameters.items()
             if p.kind is p.KEYWORD_ONLY]
    near = closest(option, known)
    return f"{option} (did you mean {near}?)" if near else option
