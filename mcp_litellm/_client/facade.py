"""``CatalogFacade``: the public catalog and notification methods of :class:`~mcp_litellm.Client`.

Each is a short delegation to one of the components the client holds (``ToolCatalog``, ``Resources``,
``Prompts``, ``Tasks``, ``Notifications``), with the loop it runs on named at the call site:
``run_sync(self._tools.find(name, refresh), home=self._session.home)``. No behaviour lives here; the class only
keeps ``client.py`` short. It declares the components it delegates to, which ``Client.__init__`` builds.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, overload

from mcp_types import PromptReference, ReadResourceResult, ResourceTemplateReference

from mcp_litellm._client.apps import AppResource, Interfaces
from mcp_litellm._client.catalog import ToolCatalog, ToolFilter
from mcp_litellm._client.notifications import EventHandler, LogHandler, Notifications, SessionLostHandler
from mcp_litellm._client.primitives.progress import ProgressHandler, ProgressUpdate
from mcp_litellm._client.primitives.prompt import Completion, Prompt
from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
from mcp_litellm._client.primitives.task import Task
from mcp_litellm._client.primitives.tool import Tool, ToolResult
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.prompts import Prompts
from mcp_litellm._client.resources import Resources
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._client.session.owner import SessionOwner
from mcp_litellm._client.tasks import Tasks
from mcp_litellm._core.deprecation import keyword_only
from mcp_litellm._core.types import HookResult

if sys.version_info >= (3, 11):
    from typing import Self
else:
    from typing_extensions import Self

if TYPE_CHECKING:
    from mcp_litellm._client.pins import ToolPins


def _user_call(timeout: float | None, on_progress: ProgressHandler | None, task: bool | None,
               reset_timeout_on_progress: bool | None, max_total_timeout: float | None) -> CallContext:
    """The context of a call the program made (``execute_tool``): no tool call id, no code run."""
    return CallContext(origin="user", timeout=timeout, on_progress=on_progress, task=task,
                       reset_timeout_on_progress=reset_timeout_on_progress, max_total_timeout=max_total_timeout)


class CatalogFacade:
    """Tools, resources, templates, prompts, tasks and notifications of a server (delegations; see the module)."""

    _session: SessionOwner
    _tools: ToolCatalog
    _resources: Resources
    _prompts: Prompts
    _tasks: Tasks
    _interfaces: Interfaces
    _notifications: Notifications

    # -- tools -----------------------------------------------------------------------------------

    @property
    def tool_filter(self) -> ToolFilter | None:
        """Which tools the client offers (set by ``ServerConfig.client`` from a config's tool lists)."""
        return self._tools.filter

    @tool_filter.setter
    def tool_filter(self, value: ToolFilter | None) -> None:
        self._tools.filter = value

    @property
    def _tool_pins(self) -> ToolPins | None:
        """The pins of a client with ``tool_pins``, else None (a group and ``mcp-litellm pins`` read them)."""
        return self._tools.pins

    @keyword_only("refresh")
    def tools(self, *, refresh: bool = False) -> list[Tool]:
        """The server's tools (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._tools.list_tools(refresh), home=self._session.home)

    @keyword_only("refresh")
    async def atools(self, *, refresh: bool = False) -> list[Tool]:
        """Async twin of :meth:`tools`."""
        return await run_async(self._tools.list_tools(refresh), home=self._session.home)

    @keyword_only("refresh")
    def tool(self, name: str, *, refresh: bool = False) -> Tool:
        """The tool called ``name`` (its LiteLLM name or the server's name); ``NotFoundError`` if absent."""
        return run_sync(self._tools.find(name, refresh), home=self._session.home)

    @keyword_only("refresh")
    async def atool(self, name: str, *, refresh: bool = False) -> Tool:
        """Async twin of :meth:`tool`."""
        return await run_async(self._tools.find(name, refresh), home=self._session.home)

    async def list_tools(self) -> list[Tool]:
        """The server's tools, to offer a model (:class:`~mcp_litellm._client.primitives.toolset.Toolset`).

        As :meth:`atools`, except that a server which cannot list them now (its connection is down, or it does
        not answer) gives the tools it last listed, with one warning until it lists again: what a chat offers
        stays, and calls to those tools fail as they would (answered to the model as errors). ``AuthError``
        raises."""
        return await self._offered_tools(False)

    async def _offered_tools(self, refresh: bool) -> list[Tool]:
        return await run_async(self._tools.offered(refresh), home=self._session.home)

    async def call_tool(self, name: str | Tool, arguments: Mapping[str, object] | None = None,
                        ctx: CallContext | None = None) -> ToolResult:
        """Call tool ``name`` with ``arguments`` as ``ctx`` says (the :class:`Toolset` interface): its tool call
        id names the call's span, its code run reaches the approval handler, its options bound the call.
        Without ``ctx``, a call of the program's own, with the client's settings (as :meth:`aexecute_tool`, which
        takes the options as keywords)."""
        return await run_async(self._tools.execute(name, arguments, ctx or CallContext()), home=self._session.home)

    def execute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                     timeout: float | None = None, on_progress: ProgressHandler | None = None,
                     task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                     max_total_timeout: float | None = None) -> ToolResult:
        """Call tool ``name`` with ``parameters``; returns a :class:`ToolResult` (``is_error`` for tool errors).

        ``name`` is the tool's LiteLLM name or the server's name for it, or a :class:`Tool` of this client.
        A tool whose ``task_support`` is ``"required"`` (or ``"optional"`` with ``task=True``) runs as a
        task: status messages go to ``on_progress``; a timeout or cancellation cancels the task.

        ``timeout`` (default: the client's ``request_timeout``) bounds the whole call: looking the tool
        up, a reconnect, the request and the delivery of its progress updates share it. With
        ``reset_timeout_on_progress=True`` each progress notification from the server restarts the
        ``timeout``, never past ``max_total_timeout`` seconds in all (``None`` for either: the client's
        setting).

        Raises ``NotFoundError`` for an unknown name, ``RequestTimeoutError``, ``TransportError`` or
        ``ServerError`` when the call itself fails.
        """
        ctx = _user_call(timeout, on_progress, task, reset_timeout_on_progress, max_total_timeout)
        return run_sync(self._tools.execute(name, parameters, ctx), home=self._session.home)

    async def aexecute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                            timeout: float | None = None, on_progress: ProgressHandler | None = None,
                            task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                            max_total_timeout: float | None = None) -> ToolResult:
        """Async twin of :meth:`execute_tool`."""
        ctx = _user_call(timeout, on_progress, task, reset_timeout_on_progress, max_total_timeout)
        return await run_async(self._tools.execute(name, parameters, ctx), home=self._session.home)

    def pin_tools(self, names: Iterable[str] | str | None = None) -> list[str]:
        """Accept the server's current tool definitions as trusted (``tool_pins``): withheld tools become
        available again. ``names`` limits it to those tools (the server's names or LiteLLM names);
        ``None`` pins every current tool (and forgets pins of tools the server no longer has).
        Returns the server names of the tools pinned. ``ConfigError`` without ``tool_pins``."""
        return run_sync(self._tools.pin(names), home=self._session.home)

    async def apin_tools(self, names: Iterable[str] | str | None = None) -> list[str]:
        """Async twin of :meth:`pin_tools`."""
        return await run_async(self._tools.pin(names), home=self._session.home)

    # -- tasks -----------------------------------------------------------------------------------

    def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                   ttl: float | None = None, timeout: float | None = None) -> Task:
        """Start tool ``name`` as a task and return its :class:`~mcp_litellm.Task` (see ``Tool.start_task``).

        ``ttl``: seconds the server should keep the task; ``timeout``: seconds for creating it.
        A tool whose ``task_support`` is ``"forbidden"`` raises ``ConfigError``.
        """
        return run_sync(self._tasks.start_task(name, parameters, ttl, timeout), home=self._session.home)

    async def astart_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                          ttl: float | None = None, timeout: float | None = None) -> Task:
        """Async twin of :meth:`start_task`."""
        return await run_async(self._tasks.start_task(name, parameters, ttl, timeout), home=self._session.home)

    def tasks(self) -> list[Task]:
        """The server's tasks (``tasks/list``; 2025-11-25 servers with the ``tasks.list`` capability).

        Their ``tool_name`` is empty: the listing does not say which tool a task runs. Raises
        ``ConfigError`` for a server that cannot list tasks.
        """
        return run_sync(self._tasks.list_tasks(), home=self._session.home)

    async def atasks(self) -> list[Task]:
        """Async twin of :meth:`tasks`."""
        return await run_async(self._tasks.list_tasks(), home=self._session.home)

    # -- interfaces (MCP Apps) -------------------------------------------------------------------

    def read_ui(self, tool: str | Tool) -> AppResource:
        """The interface of ``tool`` (a :class:`Tool` or a tool name): its ``ui://`` resource as an
        :class:`AppResource`, kept with the tools listing (and the read's ``ttlMs``). :class:`AppResourceError`
        when the tool has no interface, or it is not a ``ui://`` resource of MIME type
        ``text/html;profile=mcp-app``; with ``tool_pins``, :class:`ToolChangedError` when it changed since it
        was pinned (accept it with :meth:`pin_ui`)."""
        return run_sync(self._interfaces.read_ui(tool), home=self._session.home)

    async def aread_ui(self, tool: str | Tool) -> AppResource:
        """Async twin of :meth:`read_ui`."""
        return await run_async(self._interfaces.read_ui(tool), home=self._session.home)

    def pin_ui(self, tool: str | Tool) -> AppResource:
        """Accept the current interface of ``tool`` (with ``tool_pins``): an interface that changed after it
        was pinned is withheld from :meth:`read_ui` until this accepts it. Returns it."""
        return run_sync(self._interfaces.pin_ui(tool), home=self._session.home)

    async def apin_ui(self, tool: str | Tool) -> AppResource:
        """Async twin of :meth:`pin_ui`."""
        return await run_async(self._interfaces.pin_ui(tool), home=self._session.home)

    # -- resources -------------------------------------------------------------------------------

    @keyword_only("refresh")
    def resources(self, *, refresh: bool = False) -> list[Resource]:
        """The server's resources (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._resources.list_resources(refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aresources(self, *, refresh: bool = False) -> list[Resource]:
        """Async twin of :meth:`resources`."""
        return await run_async(self._resources.list_resources(refresh), home=self._session.home)

    @keyword_only("refresh")
    def resource(self, name: str, *, refresh: bool = False) -> Resource:
        """The resource called ``name`` (or with that uri or title); ``NotFoundError`` if absent."""
        return run_sync(self._resources.find_resource(name, refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aresource(self, name: str, *, refresh: bool = False) -> Resource:
        """Async twin of :meth:`resource`."""
        return await run_async(self._resources.find_resource(name, refresh), home=self._session.home)

    def read_resource(self, uri: str) -> str | bytes:
        """Read the resource at ``uri`` now: ``str`` for text, ``bytes`` for blobs (several parts are joined)."""
        return run_sync(self._resources.read_value(uri), home=self._session.home)

    async def aread_resource(self, uri: str) -> str | bytes:
        """Async twin of :meth:`read_resource`."""
        return await run_async(self._resources.read_value(uri), home=self._session.home)

    @keyword_only("refresh")
    def resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """The server's resource templates (cached like :meth:`resources`)."""
        return run_sync(self._resources.list_templates(refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aresource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """Async twin of :meth:`resource_templates`."""
        return await run_async(self._resources.list_templates(refresh), home=self._session.home)

    @keyword_only("refresh")
    def resource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """The template called ``name`` (or with that URI template); ``NotFoundError`` if absent."""
        return run_sync(self._resources.find_template(name, refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aresource_template(self, name: str, *, refresh: bool = False) -> ResourceTemplate:
        """Async twin of :meth:`resource_template`."""
        return await run_async(self._resources.find_template(name, refresh), home=self._session.home)

    # -- prompts ---------------------------------------------------------------------------------

    @keyword_only("refresh")
    def prompts(self, *, refresh: bool = False) -> list[Prompt]:
        """The server's prompts (fetched once, then cached until ``refresh=True``, a list_changed, or the
        server's ``ttlMs`` runs out)."""
        return run_sync(self._prompts.list_prompts(refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aprompts(self, *, refresh: bool = False) -> list[Prompt]:
        """Async twin of :meth:`prompts`."""
        return await run_async(self._prompts.list_prompts(refresh), home=self._session.home)

    @keyword_only("refresh")
    def prompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """The prompt called ``name``; ``NotFoundError`` if absent."""
        return run_sync(self._prompts.find_prompt(name, refresh), home=self._session.home)

    @keyword_only("refresh")
    async def aprompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """Async twin of :meth:`prompt`."""
        return await run_async(self._prompts.find_prompt(name, refresh), home=self._session.home)

    # -- notifications (registration only, no I/O, except the deprecated a-forms of logging) -----------

    def on_logging(self, fn: LogHandler, level: str = "info") -> Self:
        """Call ``fn(level, logger, data)`` for each server log message at ``level`` or above.

        Sets the server's level (``logging/setLevel``) on 2025-era connections that offer it, before the
        client's next request (registration itself does no I/O, so it never blocks, from any thread or
        event loop); on 2026-07-28 connections every request asks for log messages at that level
        instead. Without any handler, server log messages go to the ``mcp_litellm`` logger at the
        matching level. Returns the client.
        """
        self._notifications.add_log_handler(fn, level)
        return self

    async def aon_logging(self, fn: LogHandler, level: str = "info") -> Self:
        """Deprecated: use :meth:`on_logging`, which does no I/O from sync and async code alike (the level
        applies at the next request). Until it goes, this one still sets the server's level at once (its
        errors raise)."""
        await run_async(self._notifications.add_log_handler_now(fn, level), home=self._session.home)
        return self

    def off_logging(self, fn: LogHandler) -> Self:
        """Stop calling ``fn`` for server log messages (undoes :meth:`on_logging`; unknown ``fn``: no-op).

        The server's level follows the remaining handlers from the next request on (no I/O here).
        Returns the client.
        """
        self._notifications.remove_log_handler(fn)
        return self

    async def aoff_logging(self, fn: LogHandler) -> Self:
        """Deprecated: use :meth:`off_logging` (no I/O; the level follows at the next request). Until it
        goes, this one still sets the server's level at once."""
        await run_async(self._notifications.remove_log_handler_now(fn), home=self._session.home)
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
        self._notifications.add_progress_handler(fn)
        return self

    def off_progress(self, fn: ProgressHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_progress`; an unknown ``fn`` is a no-op). Returns the client."""
        self._notifications.remove_progress_handler(fn)
        return self

    def on_list_changed(self, fn: EventHandler) -> Self:
        """Call ``fn(kind)`` when the server's ``"tools"``, ``"resources"`` or ``"prompts"`` list changed.

        The cached list is already dropped when ``fn`` runs, so listing again fetches the new one.
        Returns the client.
        """
        Notifications.register(self._notifications.list_changed_handlers, fn, "on_list_changed")
        return self

    def off_list_changed(self, fn: EventHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_list_changed`; an unknown ``fn`` is a no-op). Returns the client."""
        Notifications.unregister(self._notifications.list_changed_handlers, fn)
        return self

    def on_resource_updated(self, fn: EventHandler) -> Self:
        """Call ``fn(uri)`` when a subscribed resource changed (see ``Resource.subscribe``). Returns the client."""
        Notifications.register(self._notifications.resource_updated_handlers, fn, "on_resource_updated")
        return self

    def off_resource_updated(self, fn: EventHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_resource_updated`; an unknown ``fn`` is a no-op).

        Returns the client.
        """
        Notifications.unregister(self._notifications.resource_updated_handlers, fn)
        return self

    def on_session_lost(self, fn: SessionLostHandler) -> Self:
        """Call ``fn(server, reason)`` when this HTTP client has to start a new MCP session: the server
        forgot the old one (HTTP 404, or a session-related 400 after a restart) or the connection to it
        was lost. What the server kept in the old session (a browser page, a login, open files) may be
        gone; ``fn`` (sync or async, run as a task of its own) can tell the user or set it up again. An
        answer merely cut off does not end the session and does not call ``fn``. Without a handler the
        client logs a WARNING. Returns the client."""
        Notifications.register(self._notifications.session_lost_handlers, fn, "on_session_lost")
        return self

    def off_session_lost(self, fn: SessionLostHandler) -> Self:
        """Stop calling ``fn`` (undoes :meth:`on_session_lost`; an unknown ``fn`` is a no-op). Returns the client."""
        Notifications.unregister(self._notifications.session_lost_handlers, fn)
        return self

    # -- what a Resource, Prompt or Task of this client asks of it (their owner protocols) ----------

    async def _read(self, uri: str, refresh: bool) -> ReadResourceResult:
        return await self._resources.read(uri, refresh)

    async def _subscription(self, uri: str, subscribe: bool) -> None:
        await self._notifications.subscription(uri, subscribe)

    async def _get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        return await self._prompts.get_prompt(name, arguments)

    async def _complete(self, ref: PromptReference | ResourceTemplateReference, argument: str, value: str,
                        context: Mapping[str, str] | None) -> Completion:
        return await self._prompts.complete(ref, argument, value, context)


__all__ = ["CatalogFacade"]
