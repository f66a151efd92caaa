"""``Client``: one MCP server, usable from sync and async code alike.

Every public blocking method has an ``a``-prefixed async twin. Both run the same coroutine on the
loop the client's session lives on (see ``session/loop.py``); no behaviour lives only in the sync path.

A client is built by composition: its session (``SessionOwner``), cached listings (``Listings``), notifications
(``Notifications``), tool catalog (``ToolCatalog``, with the ``ToolPins``), ``Resources``, ``Prompts`` and
``Tasks``, each given its dependencies in ``_build_components``. The public methods delegate to them and name the
loop at the call site; the catalog and notification ones are written in ``facade.py``.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

from mcp_types import Implementation, ServerCapabilities

from mcp_litellm._client.apps import Interfaces, UIExtension
from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.catalog import ToolCatalog
from mcp_litellm._client.facade import CatalogFacade
from mcp_litellm._client.features import build_features
from mcp_litellm._client.listing import CatalogCache
from mcp_litellm._client.live import live_clients
from mcp_litellm._client.notifications import Notifications
from mcp_litellm._client.options import client_settings
from mcp_litellm._client.primitives.roots import Roots
from mcp_litellm._client.prompts import Prompts
from mcp_litellm._client.resources import Resources
from mcp_litellm._client.session.connection import Connection
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._client.session.mcp_session import SessionOptions
from mcp_litellm._client.session.owner import SessionHooks, SessionOwner
from mcp_litellm._client.session.task_protocol import TasksExtension
from mcp_litellm._client.tasks import Tasks
from mcp_litellm._core.errors import ConfigError
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
from mcp_litellm._transports.wire.messages import DEFAULT_MAX_MESSAGE_SIZE

if TYPE_CHECKING:
    import mcp

    from mcp_litellm._client.notifications import SessionLostHandler
    from mcp_litellm._client.pins import PinStore
    from mcp_litellm._client.primitives.handler_specs import ElicitationSettings, HandlerSpec, SamplingSettings
    from mcp_litellm._client.primitives.handler_types import (
        ApprovalHandlerArg,
        ElicitationArg,
        ElicitationHandlerArg,
        RootsArg,
        SamplingArg,
        SamplingHandlerArg,
    )
    from mcp_litellm._core.usage import Usage

logger = logging.getLogger("mcp_litellm")

_PROTOCOLS = ("auto", "legacy")


class Client(CatalogFacade):
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
        human_in_the_loop: a tool-call approval handler (``on_human_in_the_loop=`` is its deprecated spelling).
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
        self._transport: Transport | None = None
        options = given(sampling=sampling, elicitation=elicitation, roots=roots, human_in_the_loop=human_in_the_loop,
                        on_human_in_the_loop=on_human_in_the_loop)
        self._features = build_features(self, options)
        self._session = SessionOwner(name, self._session_hooks())
        """The connection on its home loop: started, stopped, caught up before each request."""
        self._build_components(tool_pins)
        if on_session_lost is not None:
            self.on_session_lost(on_session_lost)
        if start:
            if _event_loop_running():  # connecting here would block that loop for the whole connect
                self._session.connect_on_first_use = True
            else:
                self.start()

    def _build_components(self, tool_pins: object) -> None:
        """The catalog side, each part given what it needs (the session's owner first of all)."""
        session, timeout = self._session, self._timeout
        self._catalog_cache = cache = CatalogCache()
        self._listings = listings = Listings(self.name, cache, session.connected, lambda: timeout(None))
        self._notifications = notifications = Notifications(session, listings=listings, cache=cache,
                                                            features=self._features, timeout=timeout)
        self._task_claims = TasksExtension()
        """Finishes tasks a 2026-07-28 server makes of plain tool calls; each call says where their status goes."""
        approve = self._features.approve_tool_call
        self._tools = ToolCatalog(self, session, listings=listings, cache=cache, notifications=notifications,
                                  approve=approve, features=self._features, task_claims=self._task_claims,
                                  timeout=timeout)
        self._tools.use_pins(tool_pins)
        meta = notifications.request_meta
        self._resources = Resources(self, session, listings=listings, cache=cache, meta=meta, timeout=timeout)
        self._prompts = Prompts(self, session, listings=listings, meta=meta, timeout=timeout)
        self._tasks = Tasks(self, session, resolve=self._tools.resolve, approve=approve, meta=meta, timeout=timeout)
        self._interfaces = Interfaces(self.name, find=self._tools.find, read=self._resources.read, cache=cache,
                                      pins=lambda: self._tools.pins)

    def _session_options(self) -> SessionOptions:
        """What the next session is built with: client features, then notifications, add callbacks."""
        info = Implementation(name="mcp-litellm", version=VERSION)
        options = SessionOptions(protocol=self.protocol, client_info=info)
        options.extra["extensions"] = [self._task_claims, *([UIExtension()] if self.apps else [])]
        self._features.add_session_callbacks(options)
        self._notifications.add_session_callbacks(options)
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

    # -- lifecycle: the session's owner, on its home loop -------------------------------------------------

    def _session_hooks(self) -> SessionHooks:
        """What this client does at its session's edges (the owner's explicit dependencies)."""
        return SessionHooks(
            new_connection=self._new_connection, after_connect=self._reinitialised,
            before_stop=lambda: self._notifications.before_stop(),
            pending_settings=lambda: self._notifications.log_level_pending,
            apply_pending_settings=lambda: self._notifications.apply_pending_settings(),
            missing_capabilities=self._features.missing_capabilities, opened=lambda: live_clients.add(self),
            closed=self._session_closed, request_timeout=lambda: self.request_timeout)

    def _new_connection(self) -> Connection:
        connection = Connection(self.name, self._transport_object(), self._session_options())
        connection.on_reinitialised = self._reinitialised
        connection.on_session_lost = self._notifications.session_lost
        return connection

    async def _reinitialised(self) -> None:
        """After a connect, and when an expired HTTP session was replaced (on the home loop)."""
        self._listings.invalidate()  # per-session caches start empty
        await self._notifications.after_connect()  # server log level, listen stream, subscriptions

    def _session_closed(self) -> None:
        live_clients.discard(self)
        forget_secrets(self._transport)  # its headers', env's and URL's secrets are no longer masked everywhere

    async def _restart(self) -> None:
        await self._session.restart()

    def start(self) -> Client:
        """Connect to the server (no-op when already connected). Returns the client."""
        run_sync(self._session.start(), home=self._session.home)
        return self

    async def astart(self) -> Client:
        """Async twin of :meth:`start`."""
        await run_async(self._session.start(), home=self._session.home)
        return self

    def stop(self) -> None:
        """Close the session; a stdio server process (and what it spawned) is terminated."""
        run_sync(self._session.stop(), home=self._session.home)

    async def astop(self) -> None:
        """Async twin of :meth:`stop`."""
        await run_async(self._session.stop(), home=self._session.home)

    def restart(self) -> Client:
        """Stop (if needed) and connect again, e.g. after the server process died."""
        run_sync(self._session.restart(), home=self._session.home)
        return self

    async def arestart(self) -> Client:
        """Async twin of :meth:`restart`."""
        await run_async(self._session.restart(), home=self._session.home)
        return self

    def _in_flight(self) -> int:
        """How many requests are in flight on this client's session now (a pool's test of whether it is in use)."""
        return self._session.in_flight()

    def _requests_made(self) -> tuple[int, int]:
        """Which connection this client has and how many requests were made on it (a pool's test of whether a
        group it handed over was used since)."""
        return self._session.requests_made()

    async def _settled(self) -> None:
        """Return once no request is in flight on this client's session (a pool's drain before it stops one)."""
        await self._session.settled()

    @property
    def _retired(self) -> str | None:
        """Why the owner (a ClientPool) stopped this client for good."""
        return self._session.retired

    @_retired.setter
    def _retired(self, reason: str | None) -> None:
        self._session.retired = reason

    def is_alive(self) -> bool:
        """True while the session is connected and usable.

        For an HTTP server it is False from a request that found the server unreachable until a later
        request (or :meth:`ping`) reconnected; it does not probe the server itself.
        """
        return self._session.alive()

    def ping(self, *, timeout: float | None = None) -> bool:
        """Check the server answers; True or False, never raises for a dead server.

        A lost HTTP connection is reconnected first (one attempt), as for any other request."""
        return run_sync(self._session.ping(self._timeout(timeout)), home=self._session.home)

    async def aping(self, *, timeout: float | None = None) -> bool:
        """Async twin of :meth:`ping`."""
        return await run_async(self._session.ping(self._timeout(timeout)), home=self._session.home)

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
        return self._session.require().client

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

    # -- what the parts and the objects of this client ask of it ---------------------------------------

    def _session_loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop this client's session lives on (the ``home=`` of its work), None while it has none."""
        return self._session.home

    @property
    def _connection(self) -> Connection | None:
        return self._session.connection

    async def _connected(self, deadline: Deadline | None = None) -> Connection:
        """The connection, started (or restarted) first when needed (within ``deadline``, a call's)."""
        return await self._session.connected(deadline)

    def _span_attributes(self) -> dict[str, object]:
        return self._tools.span_attributes()

    def _timeout(self, timeout: float | None) -> float:
        seconds = positive_seconds(timeout, "timeout", none="for the client's request_timeout", allow_inf=True)
        return self.request_timeout if seconds is None else seconds

    def __repr__(self) -> str:
        state = ("alive" if self.is_alive() else
                 "not connected yet" if self._session.connect_on_first_use else "stopped")
        return (f"Client(name={self.name!r}, transport_type={self.transport_type!r}, "
                f"config={redact_config(self.config)!r}, {state})")


def _event_loop_running() -> bool:
    """True when the calling thread is running an event loop (async code, a notebook cell)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _unknown(option: str) -> str:
    """An unknown option of ``Client``, with the one it most likely misspells."""
    import inspect

    known = [name for name, p in inspect.signature(Client.__init__).parameters.items()
             if p.kind is p.KEYWORD_ONLY]
    near = closest(option, known)
    return f"{option} (did you mean {near}?)" if near else option
