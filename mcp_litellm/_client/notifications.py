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
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias, overload

import mcp_types as types
from mcp_types import LOG_LEVEL_META_KEY

from mcp_litellm._client.core import ClientCore
from mcp_litellm._client.primitives.progress import ProgressHandler, ProgressUpdate, handler_shape
from mcp_litellm._client.session.loop import run_async
from mcp_litellm._client.session.mcp_session import legacy_call
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, ServerError, UnsupportedFeature
from mcp_litellm._core.redact import shown_value
from mcp_litellm._core.telemetry import trace_context
from mcp_litellm._core.types import HookResult
from mcp_litellm._core.user_code import call_user_code

if sys.version_info >= (3, 11):
    from typing import Self
else:
    from typing_extensions import Self

if TYPE_CHECKING:
    import mcp
    from mcp.client.session import IncomingMessage

    from mcp_litellm._client.session.mcp_session import SessionOptions

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


class NotificationsMixin(ClientCore):
    """Handler registration and the session-side plumbing that feeds the handlers."""

    # -- hooks of the client core --------------------------------------------------------------------

    def _init_notifications(self) -> None:
        self._log_handlers: list[tuple[LogHandler, int]] = []
        self._list_changed_handlers: list[Callable[..., object]] = []
        self._resource_updated_handlers: list[Callable[..., object]] = []
        self._session_lost_handlers: list[Callable[..., object]] = []
        self._subscribed_uris: set[str] = set()
        self._listener: asyncio.Task[None] | None = None
        self._handler_tasks: set[asyncio.Task[None]] = set()
        self._log_level_pending = False  # on_logging/off_logging changed the level; the next request sends it

    def _add_notification_callbacks(self, options: SessionOptions) -> None:
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
        if options.log_level is None and self._log_handlers:
            options.log_level = self._log_level()

    def _request_meta(self) -> dict[str, Any] | None:
        """``_meta`` to stamp on requests on 2026-07-28 connections: the log level, and the W3C trace context
        (``traceparent``/``tracestate``) of the caller's active OpenTelemetry span. (On 2025-era connections
        the SDK's own request path injects the trace context.)"""
        meta: dict[str, Any] = {}
        connection = self._connection
        if connection is not None and connection.alive and connection.modern:
            # Handlers choose the level; without them, ask for what the mcp_litellm logger would show.
            level = self._log_level() if self._log_handlers else _level_for_logger()
            if level is not None:
                meta.setdefault(LOG_LEVEL_META_KEY, level)
            meta.update(trace_context())
        return meta or None

    async def _after_connect(self) -> None:
        """Run on the background loop once a session is up: server log level, listener, subscriptions."""
        connection = self._require_connection()
        if connection.modern:
            try:
                await self._restart_listener(min(self._timeout(None), _FIRST_LISTEN_TIMEOUT))
            except Exception as exc:  # the session works without it: list changes just are not seen
                logger.warning("server %r: could not listen for change notifications: %s", self.name, exc)
            return
        if self._log_handlers:
            self._log_level_pending = False
            await self._apply_log_level(quiet=True)
        for uri in sorted(self._subscribed_uris):
            try:
                await self._legacy_subscription(uri, subscribe=True)
            except MCPLiteLLMError as exc:
                logger.warning("server %r: could not renew the subscription to %s: %s", self.name, uri, exc)

    async def _before_stop(self) -> None:
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
            for handler in list(self._list_changed_handlers):
                self._spawn(handler, kind)
        elif isinstance(message, types.ElicitCompleteNotification):
            self._features.elicitation_completed(str(message.params.elicitation_id))
        elif isinstance(message, types.ResourceUpdatedNotification):
            uri = str(message.params.uri)
            self._catalog_cache.drop_content(uri)
            for handler in list(self._resource_updated_handlers):
                self._spawn(handler, uri)

    def _on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        level = str(params.level)
        if not self._log_handlers:
            logger.log(_PY_LEVELS.get(level, logging.INFO), "server %r%s: %s", self.name,
                       f" [{params.logger}]" if params.logger else "", params.data)
            return
        rank = LOG_LEVELS.index(level) if level in LOG_LEVELS else 0
        for handler, minimum in list(self._log_handlers):
            if rank >= minimum:
                self._spawn(handler, level, params.logger, params.data)

    # -- logging ---------------------------------------------------------------------------------------

    def _log_level(self) -> str:
        return LOG_LEVELS[min((minimum for _, minimum in self._log_handlers), default=1)]

    async def _apply_log_level(self, *, quiet: bool = False) -> None:
        connection = self._connection
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

    async def _apply_pending_settings(self) -> None:
        """Run before each request: send the log level ``on_logging``/``off_logging`` recorded (they do no I/O)."""
        if self._log_level_pending:
            self._log_level_pending = False
            await self._apply_log_level(quiet=True)

    def _record_log_handler(self, fn: LogHandler, level: str) -> Self:
        if not callable(fn):
            raise ConfigError(f"on_logging needs a callable, got {type(fn).__name__}")
        if level not in LOG_LEVELS:
            raise ConfigError(f"unknown log level {shown_value(level)}; use one of {', '.join(LOG_LEVELS)}")
        self._log_handlers.append((fn, LOG_LEVELS.index(level)))
        self._log_level_pending = True
        return self

    async def _add_log_handler(self, fn: LogHandler, level: str) -> Self:
        self._record_log_handler(fn, level)
        self._log_level_pending = False
        await self._apply_log_level()
        return self

    def on_logging(self, fn: LogHandler, level: str = "info") -> Self:
        """Call ``fn(level, logger, data)`` for each server log message at ``level`` or above.

        Sets the server's level (``logging/setLevel``) on 2025-era connections that offer it, before the
        client's next request (registration itself does no I/O, so it never blocks, from any thread or
        event loop); on 2026-07-28 connections every request asks for log messages at that level
        instead. Without any handler, server log messages go to the ``mcp_litellm`` logger at the
        matching level. Returns the client.
        """
        return self._record_log_handler(fn, level)

    async def aon_logging(self, fn: LogHandler, level: str = "info") -> Self:
        """Deprecated: use :meth:`on_logging`, which does no I/O from sync and async code alike (the level
        applies at the next request). Until it goes, this one still sets the server's level at once (its
        errors raise)."""
        _deprecated_now("aon_logging", "on_logging")
        return await run_async(self._add_log_handler(fn, level), home=self._session_loop())

    def _drop_log_handler(self, fn: LogHandler) -> bool:
        kept = [(handler, level) for handler, level in self._log_handlers if handler != fn]
        if len(kept) == len(self._log_handlers):
            return False
        self._log_handlers[:] = kept
        # with none left, messages go to the mcp_litellm logger, which filters them itself
        self._log_level_pending = bool(kept)
        return bool(kept)

    async def _remove_log_handler(self, fn: LogHandler) -> Self:
        if self._drop_log_handler(fn):
            self._log_level_pending = False
            await self._apply_log_level(quiet=True)
        return self

    def off_logging(self, fn: LogHandler) -> Self:
        """Stop calling ``fn`` for server log messages (undoes :meth:`on_logging`; unknown ``fn``: no-op).

        The server's level follows the remaining handlers from the next request on (no I/O here).
        Returns the client.
        """
        self._drop_log_handler(fn)
        return self

    async def aoff_logging(self, fn: LogHandler) -> Self:
        """Deprecated: use :meth:`off_logging` (no I/O; the level follows at the next request). Until it
        goes, this one still sets the server's level at once."""
        _deprecated_now("aoff_logging", "off_logging")
        return await run_async(self._remove_log_handler(fn), home=self._session_loop())

    # -- other handlers (registration only, no I/O) -------------------------------------------------------

    def _register(self, handlers: list[Callable[..., object]], fn: object, what: str) -> Self:
        if not callable(fn):
            raise ConfigError(f"{what} needs a callable, got {type(fn).__name__}")
        handlers.append(fn)
        return self

    def _unregister(self, handlers: list[Callable[..., object]], fn: object) -> Self:
        handlers[:] = [handler for handler in handlers if handler != fn]  # a copy: no race with a running dispatch
        return self

    @overload
    def on_progress(self, fn: Callable[[float, float | None, str | None, str], HookResult]) -> Self: ...
    @overload
    def on_progress(self, fn: Callable[[float, float | None, str | None], HookResult]) -> Self: ...
    @overload
    def on_progress(self, fn: Callable[[ProgressUpdate], HookResult]) -> Self: ...
    def on_progress(self, fn: ProgressHandler) -> Self:
        """Call ``fn(update)`` with a :class:`~mcp_litellm.ProgressUpdate` for progress of every tool call
        (sync or async); ``update.tool`` and ``update.server`` say whose call reports.

        Handlers of the earlier forms, ``fn(progress, total, message, tool_name)`` and
        ``fn(progress, total, message)``, are still called that way. Returns the client.
        """
        if not callable(fn):
            raise ConfigError(f"on_progress needs a callable, got {type(fn).__name__}")
        self._progress_handlers.append((fn, handler_shape(fn, with_tool_name=True)))
        return self

    def on_list_changed(self, fn: EventHandler) -> Self:
        """Call ``fn(kind)`` when the server's ``"tools"``, ``"resources"`` or ``"prompts"`` list changed.

        The cached list is already dropped when ``fn`` runs, so listing again fetches the new one.
        Returns the client.
        """
        return self._register(self._list_changed_handlers, fn, "on_list_changed")

    def on_resource_updated(self, fn: EventHandler) -> Self:
        """Call ``fn(uri)`` when a subscribed resource changed (see ``Resource.subscribe``). Returns the client."""
        return self._register(self._resource_updated_handlers, fn, "on_resource_updated")

    def on_session_lost(self, fn: SessionLostHandler) -> Self:
        """Call ``fn(server, reason)`` when this HTTP client has to start a new MCP session: the server
        forgot the old one (HTTP 404, or a session-related 400 after a restart) or the connection to it
        was lost. What the server kept in the old session (a browser page, a login, open files) may be
        gone; ``fn`` (sync or async, run as a task of its own) can tell the user or set it up again. An
        answer merely cut off does not end the session and does not call ``fn``. Without a handler the
        client logs a WARNING. Returns the client."""
        return self._register(self._session_lost_handlers, fn, "on_session_lost")

    def off_session_lost(self, fn: SessionLostHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_session_lost`; an unknown ``fn`` is a no-op). Returns the client."""
        return self._unregister(self._session_lost_handlers, fn)

    def _session_lost(self, reason: str) -> None:
        """Run on the session's loop as a connection starts a new session: tell the handlers."""
        for handler in list(self._session_lost_handlers):
            self._spawn(handler, self.name, reason)

    def off_progress(self, fn: ProgressHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_progress`; an unknown ``fn`` is a no-op). Returns the client."""
        self._progress_handlers[:] = [entry for entry in self._progress_handlers if entry[0] != fn]
        return self

    def off_list_changed(self, fn: EventHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_list_changed`; an unknown ``fn`` is a no-op). Returns the client."""
        return self._unregister(self._list_changed_handlers, fn)

    def off_resource_updated(self, fn: EventHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_resource_updated`; an unknown ``fn`` is a no-op).

        Returns the client.
        """
        return self._unregister(self._resource_updated_handlers, fn)

    # -- subscriptions -------------------------------------------------------------------------------------

    async def _subscription(self, uri: str, subscribe: bool) -> None:
        connection = await self._connected()
        resources = connection.client.server_capabilities.resources
        if subscribe and (resources is None or not resources.subscribe):
            raise UnsupportedFeature(f"server {self.name!r} does not support resource subscriptions")
        if connection.modern:
            before = set(self._subscribed_uris)
            self._subscribed_uris.add(uri) if subscribe else self._subscribed_uris.discard(uri)
            if before != self._subscribed_uris:
                try:
                    await self._restart_listener()
                except BaseException:
                    self._subscribed_uris = before
                    raise
            return
        await self._legacy_subscription(uri, subscribe)
        self._subscribed_uris.add(uri) if subscribe else self._subscribed_uris.discard(uri)

    async def _legacy_subscription(self, uri: str, subscribe: bool) -> None:
        connection = await self._connected()

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
        connection = self._require_connection()
        sdk = connection.client
        caps = sdk.server_capabilities
        wanted = {
            "tools_list_changed": bool(caps.tools and caps.tools.list_changed),
            "prompts_list_changed": bool(caps.prompts and caps.prompts.list_changed),
            "resources_list_changed": bool(caps.resources and caps.resources.list_changed),
        }
        uris = sorted(self._subscribed_uris) if caps.resources and caps.resources.subscribe else []
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

        self._listener = asyncio.get_running_loop().create_task(listen(), name=f"mcp-litellm-listen:{self.name}")

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
        task, self._listener = self._listener, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
