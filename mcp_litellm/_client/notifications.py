"""Server notifications: logging, progress, list changes and resource updates, on both protocol eras.

On 2025-era (handshake) connections the server pushes notifications, which arrive through the SDK's
``message_handler`` / ``logging_callback``. On 2026-07-28 connections nothing is pushed unasked:

- list changes and resource updates flow on a ``subscriptions/listen`` stream, which a listener task
  opens right after connecting (and re-opens when the set of subscribed resources changes); the SDK
  hands the events to the same ``message_handler``;
- log messages arrive only for requests that carry a log level in ``_meta`` (``_request_meta``).

User handlers run as tasks of their own (sync ones on the worker pool of ``_core.user_code``), never inline on the SDK's
receive path, so a slow handler cannot stall the session.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import mcp_types as types
from mcp_types import LOG_LEVEL_META_KEY

from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.listing import CatalogCache
from mcp_litellm._client.primitives.progress import ProgressHandler, Shape, handler_shape
from mcp_litellm._client.session.mcp_session import legacy_call
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, ServerError, UnsupportedFeature
from mcp_litellm._core.redact import shown_value
from mcp_litellm._core.telemetry import trace_context
from mcp_litellm._core.types import HookResult
from mcp_litellm._core.user_code import call_user_code

if TYPE_CHECKING:
    import mcp
    from mcp.client.session import IncomingMessage

    from mcp_litellm._client.features import ClientFeatures
    from mcp_litellm._client.session.mcp_session import SessionOptions
    from mcp_litellm._client.session.owner import SessionOwner

logger = logging.getLogger("mcp_litellm")

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
"""MCP (RFC 5424) log levels, least severe first."""
_PY_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO, "warning": logging.WARNING,
              "error": logging.ERROR, "critical": logging.CRITICAL, "alert": logging.CRITICAL,
              "emergency": logging.CRITICAL}
_LIST_KINDS: dict[type[object], tuple[str, tuple[str, ...]]] = {
    types.ToolListChangedNotification: ("tools", ("tools",)),
    types.ResourceListChangedNotification: ("resources", ("resources", "resource_templates")),
    types.PromptListChangedNotification: ("prompts", ("prompts",)),
}

_FIRST_LISTEN_TIMEOUT = 10.0
"""Seconds a new connection waits for the listen stream's acknowledgment before going on without it."""

LogHandler: TypeAlias = "Callable[[str, str | None, Any], HookResult]"
"""``fn(level, logger, data)``, sync or async."""

EventHandler: TypeAlias = "Callable[[str], HookResult]"
"""``fn(kind)`` for list changes, ``fn(uri)`` for resource updates; sync or async."""

SessionLostHandler: TypeAlias = "Callable[[str, str], HookResult]"
"""``fn(server, reason)`` when a client had to start a new MCP session; sync or async."""


def _level_for_logger() -> str | None:
    """The least severe MCP level the ``mcp_litellm`` logger would emit now, or None when it emits nothing."""
    for python_level, level in ((logging.DEBUG, "debug"), (logging.INFO, "info"), (logging.WARNING, "warning"),
                                (logging.ERROR, "error"), (logging.CRITICAL, "critical")):
        if logger.isEnabledFor(python_level):
            return level
    return None


def _deprecated_now(old: str, new: str) -> None:
    """``on_*``/``off_*`` only record, everywhere (applied at the next request): the ``a``-prefixed "apply now"
    forms of logging go after one deprecation cycle (design review §5.7)."""
    warnings.warn(f"client.{old}() is deprecated: use client.{new}(), which records the handler without I/O "
                  "from sync and async code alike; the server's level is set before the next request",
                  DeprecationWarning, stacklevel=3)


class Notifications:
    """What a server tells a client unasked, and the handlers that hear it: logging, progress, list changes,
    resource updates and lost sessions; the 2026-07-28 listen stream and the resource subscriptions.

    Built by :class:`~mcp_litellm.Client` with what it needs: the session's owner (the connection), the cached
    listings and catalog cache (a list change or resource update drops them), the client features (a URL
    elicitation completed) and the client's ``timeout`` rule. Registration does no I/O; the rest runs on the
    session's home loop.
    """

    def __init__(self, session: SessionOwner, *, listings: Listings, cache: CatalogCache, features: ClientFeatures,
                 timeout: Callable[[float | None], float]) -> None:
        self.name = session.name
        self._session = session
        self._listings = listings
        self._cache = cache
        self._features = features
        self._timeout = timeout
        self.progress_handlers: list[tuple[ProgressHandler, Shape]] = []
        """Progress handlers of every tool call (``on_progress``); a tool call also asks its own."""
        self.log_handlers: list[tuple[LogHandler, int]] = []
        self.list_changed_handlers: list[Callable[..., object]] = []
        self.resource_updated_handlers: list[Callable[..., object]] = []
        self.session_lost_handlers: list[Callable[..., object]] = []
        self.subscribed_uris: set[str] = set()
        self.listener: asyncio.Task[None] | None = None
        self._handler_tasks: set[asyncio.Task[None]] = set()
        self.log_level_pending = False  # on_logging/off_logging changed the level; the next request sends it

    # -- the session's edges ---------------------------------------------------------------------------

    def add_session_callbacks(self, options: SessionOptions) -> None:
        """Route the new session's messages and log notifications here (after what ``options`` had)."""
        previous_handler, previous_logging = options.message_handler, options.logging_callback

        async def message_handler(message: IncomingMessage) -> None:
            self._on_message(message)
            if previous_handler is not None:
                await previous_handler(message)

        async def logging_callback(params: types.LoggingMessageNotificationParams) -> None:
            self._on_log(params)
            if previous_logging is not None:
                await previous_logging(params)

        options.message_handler = message_handler
        options.logging_callback = logging_callback
        if options.log_level is None and self.log_handlers:
            options.log_level = self._log_level()

    def request_meta(self) -> dict[str, Any] | None:
        """``_meta`` to stamp on requests on 2026-07-28 connections: the log level, and the W3C trace context
        (``traceparent``/``tracestate``) of the caller's active OpenTelemetry span. (On 2025-era connections
        the SDK's own request path injects the trace context.)"""
        meta: dict[str, Any] = {}
        connection = self._session.connection
        if connection is not None and connection.alive and connection.modern:
            # Handlers choose the level; without them, ask for what the mcp_litellm logger would show.
            level = self._log_level() if self.log_handlers else _level_for_logger()
            if level is not None:
                meta.setdefault(LOG_LEVEL_META_KEY, level)
            meta.update(trace_context())
        return meta or None

    async def after_connect(self) -> None:
        """Run on the background loop once a session is up: server log level, listener, subscriptions."""
        connection = self._session.require()
        if connection.modern:
            try:
                await self._restart_listener(min(self._timeout(None), _FIRST_LISTEN_TIMEOUT))
            except Exception as exc:  # the session works without it: list changes just are not seen
                logger.warning("server %r: could not listen for change notifications: %s", self.name, exc)
            return
        if self.log_handlers:
            self.log_level_pending = False
            await self._apply_log_level(quiet=True)
        for uri in sorted(self.subscribed_uris):
            try:
                await self._legacy_subscription(uri, subscribe=True)
            except MCPLiteLLMError as exc:
                logger.warning("server %r: could not renew the subscription to %s: %s", self.name, uri, exc)

    async def before_stop(self) -> None:
        """Run on the background loop before the session closes: stop the listener."""
        await self._stop_listener()

    # -- what arrives from the session ---------------------------------------------------------------

    def _spawn(self, handler: Callable[..., object], *args: object) -> None:
        async def run() -> None:
            try:
                await call_user_code(handler, *args)
            except Exception:
                logger.exception("notification handler %r of server %r failed", handler, self.name)

        task = asyncio.get_running_loop().create_task(run())
        self._handler_tasks.add(task)
        task.add_done_callback(self._handler_tasks.discard)

    def _on_message(self, message: object) -> None:
        if isinstance(message, Exception):
            logger.debug("server %r: transport reported %r", self.name, message)
            return
        listed = _LIST_KINDS.get(type(message))
        if listed is not None:
            kind, caches = listed
            for cache in caches:
                self._listings.invalidate(cache)
            logger.debug("server %r: %s list changed", self.name, kind)
            for handler in list(self.list_changed_handlers):
                self._spawn(handler, kind)
        elif isinstance(message, types.ElicitCompleteNotification):
            self._features.elicitation_completed(str(message.params.elicitation_id))
        elif isinstance(message, types.ResourceUpdatedNotification):
            uri = str(message.params.uri)
            self._cache.drop_content(uri)
            for handler in list(self.resource_updated_handlers):
                self._spawn(handler, uri)

    def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        level = str(params.level)
        if not self.log_handlers:
            logger.log(_PY_LEVELS.get(level, logging.INFO), "server %r%s: %s", self.name,
                       f" [{params.logger}]" if params.logger else "", params.data)
            return
        rank = LOG_LEVELS.index(level) if level in LOG_LEVELS else 0
        for handler, minimum in list(self.log_handlers):
            if rank >= minimum:
                self._spawn(handler, level, params.logger, params.data)

    def session_lost(self, reason: str) -> None:
        """Run on the session's loop as a connection starts a new session: tell the handlers."""
        for handler in list(self.session_lost_handlers):
            self._spawn(handler, self.name, reason)

    # -- logging ---------------------------------------------------------------------------------------

    def _log_level(self) -> str:
        return LOG_LEVELS[min((minimum for _, minimum in self.log_handlers), default=1)]

    async def _apply_log_level(self, *, quiet: bool = False) -> None:
        connection = self._session.connection
        if connection is None or not connection.alive or connection.modern:
            return  # modern connections stamp the level on each request instead
        if connection.client.server_capabilities.logging is None:
            logger.debug("server %r does not offer logging/setLevel", self.name)
            return
        level = self._log_level()

        async def call(client: Any) -> Any:
            return await legacy_call(lambda: client.session.set_logging_level(level=level))

        try:
            await connection.request("logging/setLevel", call, self._timeout(None))
        except MCPLiteLLMError as exc:
            if not quiet:
                raise
            logger.warning("server %r: could not set the log level to %s: %s", self.name, level, exc)

    async def apply_pending_settings(self) -> None:
        """Run before each request: send the log level ``on_logging``/``off_logging`` recorded (they do no I/O)."""
        if self.log_level_pending:
            self.log_level_pending = False
            await self._apply_log_level(quiet=True)

    def add_log_handler(self, fn: LogHandler, level: str) -> None:
        """Record ``fn`` for server log messages at ``level`` or above (no I/O: the next request sends the level)."""
        if not callable(fn):
            raise ConfigError(f"on_logging needs a callable, got {type(fn).__name__}")
        if level not in LOG_LEVELS:
            raise ConfigError(f"unknown log level {shown_value(level)}; use one of {', '.join(LOG_LEVELS)}")
        self.log_handlers.append((fn, LOG_LEVELS.index(level)))
        self.log_level_pending = True

    async def add_log_handler_now(self, fn: LogHandler, level: str) -> None:
        """Deprecated path (``aon_logging``): record ``fn`` and set the server's level at once."""
        _deprecated_now("aon_logging", "on_logging")
        self.add_log_handler(fn, level)
        self.log_level_pending = False
        await self._apply_log_level()

    def remove_log_handler(self, fn: LogHandler) -> bool:
        """Forget ``fn``; whether handlers are left whose level the server must now be told."""
        kept = [(handler, level) for handler, level in self.log_handlers if handler != fn]
        if len(kept) == len(self.log_handlers):
            return False
        self.log_handlers[:] = kept
        # with none left, messages go to the mcp_litellm logger, which filters them itself
        self.log_level_pending = bool(kept)
        return bool(kept)

    async def remove_log_handler_now(self, fn: LogHandler) -> None:
        """Deprecated path (``aoff_logging``): forget ``fn`` and set the server's level at once."""
        _deprecated_now("aoff_logging", "off_logging")
        if self.remove_log_handler(fn):
            self.log_level_pending = False
            await self._apply_log_level(quiet=True)

    # -- other handlers (registration only, no I/O) -------------------------------------------------------

    @staticmethod
    def register(handlers: list[Callable[..., object]], fn: object, what: str) -> None:
        """Add ``fn`` to ``handlers`` (``ConfigError``, naming ``what``, when it is not callable)."""
        if not callable(fn):
            raise ConfigError(f"{what} needs a callable, got {type(fn).__name__}")
        handlers.append(fn)

    @staticmethod
    def unregister(handlers: list[Callable[..., object]], fn: object) -> None:
        """Drop ``fn`` from ``handlers`` (a copy: no race with a running dispatch)."""
        handlers[:] = [handler for handler in handlers if handler != fn]

    def add_progress_handler(self, fn: ProgressHandler) -> None:
        """Record ``fn`` for the progress of every tool call."""
        if not callable(fn):
            raise ConfigError(f"on_progress needs a callable, got {type(fn).__name__}")
        self.progress_handlers.append((fn, handler_shape(fn, with_tool_name=True)))

    def remove_progress_handler(self, fn: ProgressHandler) -> None:
        """Forget ``fn`` (an unknown one is a no-op)."""
        self.progress_handlers[:] = [entry for entry in self.progress_handlers if entry[0] != fn]

    # -- subscriptions -------------------------------------------------------------------------------------

    async def subscription(self, uri: str, subscribe: bool) -> None:
        """Subscribe to (or unsubscribe from) the updates of the resource at ``uri``."""
        connection = await self._session.connected()
        resources = connection.client.server_capabilities.resources
        if subscribe and (resources is None or not resources.subscribe):
            raise UnsupportedFeature(f"server {self.name!r} does not support resource subscriptions")
        if connection.modern:
            before = set(self.subscribed_uris)
            self.subscribed_uris.add(uri) if subscribe else self.subscribed_uris.discard(uri)
            if before != self.subscribed_uris:
                try:
                    await self._restart_listener()
                except BaseException:
                    self.subscribed_uris = before
                    raise
            return
        await self._legacy_subscription(uri, subscribe)
        self.subscribed_uris.add(uri) if subscribe else self.subscribed_uris.discard(uri)

    async def _legacy_subscription(self, uri: str, subscribe: bool) -> None:
        connection = await self._session.connected()

        async def call(client: mcp.Client) -> Any:
            session = client.session
            return await legacy_call(lambda: session.subscribe_resource(uri) if subscribe
                                     else session.unsubscribe_resource(uri))

        method = "resources/subscribe" if subscribe else "resources/unsubscribe"
        await connection.request(method, call, self._timeout(None))

    # -- the 2026-07-28 listener -------------------------------------------------------------------------

    async def _restart_listener(self, timeout: float | None = None) -> None:
        """(Re)open the ``subscriptions/listen`` stream and wait (``timeout``) for the server's acknowledgment."""
        await self._stop_listener()
        connection = self._session.require()
        sdk = connection.client
        caps = sdk.server_capabilities
        wanted = {
            "tools_list_changed": bool(caps.tools and caps.tools.list_changed),
            "prompts_list_changed": bool(caps.prompts and caps.prompts.list_changed),
            "resources_list_changed": bool(caps.resources and caps.resources.list_changed),
        }
        uris = sorted(self.subscribed_uris) if caps.resources and caps.resources.subscribe else []
        if not any(wanted.values()) and not uris:
            return
        acknowledged: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        async def listen() -> None:
            try:
                async with sdk.listen(**wanted, resource_subscriptions=uris) as subscription:
                    acknowledged.set_result(None)
                    async for _event in subscription:
                        pass  # the SDK also hands each event to message_handler, which acts on it
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # a lost stream ends the listener; the session may be closing
                if not acknowledged.done():
                    acknowledged.set_exception(exc)
                else:
                    logger.debug("server %r: listen stream ended: %r", self.name, exc)

        self.listener = asyncio.get_running_loop().create_task(listen(), name=f"mcp-litellm-listen:{self.name}")

        async def wait(_client: mcp.Client) -> None:
            await asyncio.shield(acknowledged)

        try:
            await connection.request("subscriptions/listen", wait, self._timeout(timeout))
        except BaseException as exc:
            await self._stop_listener()
            if isinstance(exc, Exception) and not isinstance(exc, MCPLiteLLMError):
                raise ServerError(-32603, f"the subscriptions/listen stream of server {self.name!r} failed: {exc}",
                                  method="subscriptions/listen") from exc
            raise

    async def _stop_listener(self) -> None:
        task, self.listener = self.listener, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


__all__ = ["LOG_LEVELS", "EventHandler", "LogHandler", "Notifications", "SessionLostHandler"]
