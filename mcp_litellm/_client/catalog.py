"""``ToolCatalog``: a server's tools, listed, found, pinned, filtered and called.

One of the components :class:`mcp_litellm.Client` holds, beside ``Resources`` (``resources``), ``Prompts``
(``prompts``), ``Tasks`` (``tasks``) and ``Notifications`` (``notifications``); it uses the cached listings
(``cached_lists.Listings``) and the tool pins (``pins.ToolPins``), and is built with each dependency named.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mcp_types import INVALID_REQUEST, URL_ELICITATION_REQUIRED, CallToolResult, ElicitRequestURLParams
from mcp_types import Tool as SdkTool

from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.features import ClientFeatures
from mcp_litellm._client.listing import MAX_PAGES, CatalogCache, paginate
from mcp_litellm._client.notifications import Notifications
from mcp_litellm._client.pins import ToolPins, pin_store
from mcp_litellm._client.primitives.progress import ProgressDelivery, ProgressHandler, Shape, handler_shape
from mcp_litellm._client.primitives.tool import Tool, ToolOwner, ToolResult, _with_spec_defaults
from mcp_litellm._client.primitives.tool_ui import ToolUI
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.retry import call_retrying
from mcp_litellm._client.session import task_protocol as _tasks
from mcp_litellm._client.session.deadline import Deadline, check_max_total_timeout
from mcp_litellm._client.session.owner import SessionOwner
from mcp_litellm._client.session.task_protocol import TasksExtension
from mcp_litellm._client.tasks import Approve, runs_as_task, status_as_progress, task_support
from mcp_litellm._core import telemetry
from mcp_litellm._core.clean_text import clean_fields
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, NotFoundError, ServerError, server_unreachable
from mcp_litellm._core.naming import PREFIX_SEPARATOR, distinct_names, safe_tool_name, tool_matches
from mcp_litellm._core.sdk_compat import feature_off, is_output_schema_error

logger = logging.getLogger("mcp_litellm")

__all__ = ["MAX_PAGES", "CatalogOwner", "ToolCatalog", "ToolFilter", "paginate"]


@dataclass(frozen=True)
class ToolFilter:
    """Which of its server's tools a client offers: a config's ``include_tools`` / ``exclude_tools``.

    Patterns are tool names or globs (``"write_*"``), matched against the server's name for a tool and
    the client's name for it, or ``"{server}__{glob}"`` (see ``_core.naming.tool_matches``, the rule the
    group's ``include``/``exclude`` follow too). A left-out tool is neither listed nor callable through
    the client.
    """

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def why_left_out(self, server: str, *names: str) -> str | None:
        """Why a tool of ``server`` with these names is left out (the setting's name), or ``None`` if it is offered."""
        if self.include is not None and not tool_matches(self.include, server, *names):
            return "not in include_tools"
        if tool_matches(self.exclude, server, *names):
            return "excluded by exclude_tools"
        return None

    def apply(self, tools: list[Tool]) -> list[Tool]:
        """The tools this filter lets through, in order."""
        return [tool for tool in tools if self.why_left_out(tool.client.name, tool.mcp_name, tool.name) is None]


def _distinct_tool_names(tools: list[Tool]) -> list[Tool]:
    """Give tools whose provider-safe names collide on one server distinct names (see ``distinct_names``)."""
    originals = [f"{t.client.name}{PREFIX_SEPARATOR}{t.mcp_name}" if t.client.with_prefix else t.mcp_name
                 for t in tools]
    names = distinct_names([t.name for t in tools], originals)
    return [tool if tool.name == name else dataclasses.replace(tool, name=name)
            for tool, name in zip(tools, names, strict=True)]


_HOW_TO_ENABLE = {"sampling": ("sampling=True (or client.on_sampling(...))", "--allow-sampling"),
                  "elicitation": ("elicitation=handler (or client.on_elicitation(...))",
                                  "'mcp-litellm chat', which asks in the terminal"),
                  "roots": ("roots=[paths]", "")}
"""How to enable each client feature a server may ask for, in code and on the command line."""


def _raise_if_capability_off(error: ServerError, server: str, tool_name: str) -> None:
    """On 2026-07-28 a server's request for sampling, elicitation or roots comes back inside the tool
    call; when this client had the feature off, the SDK refuses it and the call fails with that refusal.
    Say so as what it is: a client setting, not a server fault."""
    feature = feature_off(error.message) if error.code == INVALID_REQUEST else None
    if feature is None:
        return
    how, cli = _HOW_TO_ENABLE[feature]
    command_line = f"; on the command line: {cli}" if cli else ""
    raise ConfigError(f"tool {tool_name!r} of server {server!r} asked this client for {feature}, which is not "
                      f"enabled on it (the client answered {error.message.strip()!r}): enable it with {how}"
                      f"{command_line}") from error


def _user_call(timeout: float | None, on_progress: ProgressHandler | None, task: bool | None,
               reset_timeout_on_progress: bool | None, max_total_timeout: float | None) -> CallContext:
    """The context of a call the program made (``execute_tool``): no tool call id, no code run."""
    return CallContext(origin="user", timeout=timeout, on_progress=on_progress, task=task,
                       reset_timeout_on_progress=reset_timeout_on_progress, max_total_timeout=max_total_timeout)


def _tool_keys(tool: Tool) -> tuple[str, str]:
    """The names a tool is looked up by: its LiteLLM name first, then the server's."""
    return tool.name, tool.mcp_name


class CatalogOwner(ToolOwner, Protocol):
    """What the tool catalog reads of its client: the name and settings its tools and calls follow (read at each
    use, as a program may set them on the client), and the client its :class:`Tool` objects belong to."""

    @property
    def max_result_chars(self) -> int | None: ...
    @property
    def retry_idempotent(self) -> bool: ...
    @property
    def reset_timeout_on_progress(self) -> bool: ...
    @property
    def max_total_timeout(self) -> float | None: ...
    @property
    def transport_type(self) -> str: ...
    @property
    def config(self) -> Mapping[str, Any]: ...
    @property
    def apps(self) -> bool: ...


class ToolCatalog:
    """The tools of one client's server (see the module's docstring).

    Built with what it needs: the client (``owner``: its settings, and what its tools belong to), the session's
    owner, the cached listings and catalog cache, the notifications (progress handlers, request ``_meta``), the
    approval of a call and the URL elicitations (the client features), the tasks extension that finishes the tasks
    a 2026-07-28 server makes of plain calls, and the client's ``timeout`` rule.
    """

    def __init__(self, owner: CatalogOwner, session: SessionOwner, *, listings: Listings, cache: CatalogCache,
                 notifications: Notifications, approve: Approve, features: ClientFeatures, task_claims: TasksExtension,
                 timeout: Callable[[float | None], float]) -> None:
        self._owner = owner
        self._session = session
        self._listings = listings
        self._cache = cache
        self._notifications = notifications
        self._approve = approve
        self._features = features
        self._task_claims = task_claims
        self._timeout = timeout
        self.filter: ToolFilter | None = None
        """Which tools the client offers (``client.tool_filter``, set by ``ServerConfig.client``)."""
        self.pins: ToolPins | None = None
        """The pins of a client with ``tool_pins`` (a component with its store and server name), else None."""
        self._down = False
        """Whether the last listing for a model (:meth:`offered`) failed: said once, not once a request."""

    @property
    def name(self) -> str:
        return self._owner.name

    @property
    def _prefix(self) -> str | None:
        return self._owner.name if self._owner.with_prefix else None

    # -- pins ------------------------------------------------------------------------------------

    def use_pins(self, tool_pins: object) -> None:
        """Set the pin store (a path, a Redis URL, a :class:`~mcp_litellm.PinStore` or ``None``)."""
        store = pin_store(tool_pins)
        self.pins = ToolPins(store, self.name) if store is not None else None

    def raise_if_withheld(self, name: str, *also: str) -> None:
        """``ToolChangedError`` when ``name`` (or one of ``also``'s prefixed forms) is a withheld tool."""
        if self.pins is not None:
            self.pins.raise_if_withheld(name, self._prefix, *also)

    async def pin(self, names: Iterable[str] | str | None) -> list[str]:
        pins = self.pins
        if pins is None:
            raise ConfigError(f"client {self.name!r} has no tool_pins: create it with tool_pins=PATH to pin its tools")
        await self.list_tools(True)  # the current definitions, as the server lists them now
        accepted = await pins.accept(pins.chosen(names, self._prefix))
        self._listings.invalidate("tools")
        for name in accepted:
            logger.info("server %r: tool %r pinned as the server defines it now", self.name, name)
        return accepted

    # -- tools -----------------------------------------------------------------------------------

    async def list_tools(self, refresh: bool | None, deadline: Deadline | None = None) -> list[Tool]:
        return await self._listings.fetch("tools", "tools/list", "tools", lambda c, cursor: c.list_tools(cursor=cursor),
                                       self._make_tool, refresh, self._finish_tools, deadline=deadline)

    async def offered(self, refresh: bool = False) -> list[Tool]:
        """:meth:`list_tools` for a model's offer: a connection down or a server not answering gives the tools
        last listed (none if never listed), said once at WARNING until a listing works again."""
        try:
            tools = await self.list_tools(refresh)
        except MCPLiteLLMError as error:
            if not server_unreachable(error):
                raise
            stale: list[Tool] = self._cache.tools.items or []
            if not self._down:
                self._down = True
                logger.warning("server %r could not list its tools, so the %d it last listed stay offered and "
                               "their calls fail until it is back: %s", self.name, len(stale), error)
            return stale
        if self._down:
            self._down = False
            logger.info("server %r lists its tools again", self.name)
        return tools

    async def _finish_tools(self, tools: list[Tool], listed: list[SdkTool]) -> list[Tool]:
        """Distinct names over all the server's tools (so they never depend on the filter), then the pins
        (``tool_pins``: changed and new tools are withheld), then the filter.

        Every fresh tools listing passes here, once, before it is cached (see ``Listings.fetch``):
        the one place to hook what a new listing brings. ``listed``: the tools as the server sent them."""
        tools = _distinct_tool_names(tools)
        if self.pins is not None:
            tools = await self.pins.withhold(tools, listed)
        return tools if self.filter is None else self.filter.apply(tools)

    def _make_tool(self, sdk_tool: Any) -> Tool:
        shown = clean_fields(self.name, "tool", sdk_tool.name, description=sdk_tool.description or "",
                             title=sdk_tool.title or (sdk_tool.annotations.title if sdk_tool.annotations else None),
                             input_schema=dict(sdk_tool.input_schema or {}),
                             output_schema=dict(sdk_tool.output_schema) if sdk_tool.output_schema else None)
        return Tool(
            name=safe_tool_name(sdk_tool.name, self._prefix),
            mcp_name=sdk_tool.name,
            **shown,
            annotations=_with_spec_defaults(sdk_tool.annotations),
            client=self._owner,
            task_support=task_support(sdk_tool),
            ui=ToolUI.from_meta(sdk_tool.meta),
        )

    async def find(self, name: str, refresh: bool, deadline: Deadline | None = None) -> Tool:
        if not refresh:  # the common case, a call by name: the cached listing's index
            cached: Tool | None = self._cache.tools.lookup(name, _tool_keys)
            if cached is not None:
                return cached
        try:
            found: Tool = await self._listings.find("tool", name, refresh,
                                                    lambda fresh: self.list_tools(fresh, deadline), _tool_keys)
        except NotFoundError as error:
            self.raise_if_withheld(name)
            reason = self.filter.why_left_out(self.name, name) if self.filter is not None else None
            if reason is None:
                raise
            raise NotFoundError("tool", name, error.available, message=(
                f"tool {name!r} of server {self.name!r} is {reason} in the server's config; "
                f"available: {error.listing}")) from None
        return found

    async def resolve(self, name: str | Tool, parameters: Mapping[str, object] | None,
                            deadline: Deadline | None = None) -> tuple[Tool, dict[str, Any]]:
        if parameters is not None and type(parameters) is not dict and not isinstance(parameters, Mapping):
            raise ConfigError(f"tool parameters must be a mapping, got {type(parameters).__name__}")
        if isinstance(name, Tool) and name.client is self._owner:
            if self.pins is not None:  # a Tool object kept from before a change: check the current listing
                await self.list_tools(None, deadline)
                self.raise_if_withheld(name.mcp_name)
            return name, dict(parameters or {})  # a Tool calls itself: no lookup, so no name can stand for another
        found = await self.find(name.mcp_name if isinstance(name, Tool) else name, False, deadline)
        return found, dict(parameters or {})

    def execute(self, name: str | Tool, parameters: Mapping[str, object] | None,
                 ctx: CallContext) -> Coroutine[Any, Any, ToolResult]:
        """The coroutine of one tool call made as ``ctx`` says; a plain function, so that without a tracer
        provider (the common case) a call is the one coroutine of :meth:`_call_tool` and no span is made.

        The call's :class:`Deadline` starts here, so it covers everything the call waits for."""
        deadline = self._call_deadline(ctx.timeout, ctx.reset_timeout_on_progress, ctx.max_total_timeout)
        if telemetry.enabled():
            return self._traced_call(name, parameters, deadline, ctx)
        return self._call_tool(name, parameters, deadline, ctx)

    def _call_deadline(self, timeout: float | None, reset_timeout_on_progress: bool | None,
                       max_total_timeout: float | None) -> Deadline:
        """The deadline of a tool call starting now: the call's options, else the client's."""
        owner = self._owner
        reset = owner.reset_timeout_on_progress if reset_timeout_on_progress is None else reset_timeout_on_progress
        if not isinstance(reset, bool):
            raise ConfigError(f"reset_timeout_on_progress must be True or False, got {reset!r}")
        total = owner.max_total_timeout if max_total_timeout is None else check_max_total_timeout(max_total_timeout)
        return Deadline(self._timeout(timeout), "tools/call", reset_on_progress=reset, max_total=total)

    async def _traced_call(self, name: str | Tool, parameters: Mapping[str, object] | None, deadline: Deadline,
                           ctx: CallContext) -> ToolResult:
        tool, _ = await self.resolve(name, parameters, deadline)
        with telemetry.span(f"tools/call {tool.mcp_name}", self._tool_span_attributes(tool, ctx),
                            kind="client") as span:
            result = await self._call_tool(tool, parameters, deadline, ctx)
            if result.is_error:
                telemetry.fail(span, "tool_error")
            return result

    def span_attributes(self) -> dict[str, object]:
        """The server's span attributes: its name and, while connected, the protocol version."""
        attributes: dict[str, object] = {"mcp_litellm.server": self.name}
        connection = self._session.connection
        try:
            version = connection.client.protocol_version if connection is not None else None
        except MCPLiteLLMError:  # not connected (any more)
            version = None
        if version:
            attributes["mcp.protocol.version"] = version
        return attributes

    def _tool_span_attributes(self, tool: Tool, ctx: CallContext) -> dict[str, object]:
        """The span attributes of a call of ``tool`` made as ``ctx`` says (MCP and GenAI semantic conventions)."""
        attributes: dict[str, object] = {"mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool",
                                         "gen_ai.tool.name": tool.mcp_name, **self.span_attributes()}
        if ctx.tool_call_id:
            attributes["gen_ai.tool.call.id"] = ctx.tool_call_id
        attributes.update(telemetry.transport_attributes(self._owner.transport_type, self._owner.config))
        return attributes

    async def _call_tool(self, name: str | Tool, parameters: Mapping[str, object] | None, deadline: Deadline,
                         ctx: CallContext) -> ToolResult:
        tool, arguments = await self.resolve(name, parameters, deadline)
        connection = await self._session.connected(deadline)
        # 2026-07-28: the server decides which calls become tasks (taskSupport is a 2025-11-25 field)
        as_task = not connection.modern and runs_as_task(tool, ctx.task, self.name)
        with deadline.paused():  # a person may be deciding: not the server's time
            denial = await self._approve(tool, arguments, ctx)
        if denial is not None:
            telemetry.current_span().set_attribute("mcp_litellm.tool.denied", True)
            return ToolResult.error(f"Tool call was denied: {denial}", tool.mcp_name)
        progress = self._progress_callback(tool.mcp_name, ctx, deadline)
        report = status_as_progress(progress)
        meta = self._notifications.request_meta()
        claimed = self._task_claims

        async def call(client: Any) -> CallToolResult:
            with claimed.reporting(report):  # a 2026-07-28 server may make a task of any call
                if not as_task:
                    called: CallToolResult = await client.call_tool(tool.mcp_name, arguments,
                                                                    progress_callback=progress, meta=meta)
                    return called
                made = await _tasks.create(client.session, tool.mcp_name, arguments, modern=connection.modern,
                                           ttl=None, meta=meta, progress=progress)
                if isinstance(made, CallToolResult):
                    return made
                if report is not None:
                    await report(made)
                return await _tasks.run(client.session, made, report, modern=connection.modern)

        def direct(client: Any) -> Awaitable[CallToolResult]:  # the common case: no task, no status
            called: Awaitable[CallToolResult] = client.call_tool(tool.mcp_name, arguments, progress_callback=progress,
                                                                 meta=meta)
            return called

        send = direct if report is None and not as_task else call
        try:
            try:
                result = await call_retrying(lambda left: connection.request("tools/call", send, left),
                                             deadline, tool=tool, connection=connection,
                                             enabled=self._owner.retry_idempotent)
            except ServerError as error:
                _raise_if_capability_off(error, self.name, tool.mcp_name)
                if error.code != URL_ELICITATION_REQUIRED:
                    raise
                await self._complete_url_elicitations(error)  # raises unless the user took every URL
                result = await connection.request("tools/call", send, deadline)  # once
            finally:
                if progress is not None:  # the SDK runs progress callbacks in tasks of their own
                    await progress.drain(deadline.remaining())
        except RuntimeError as exc:  # the SDK's output-schema check
            if not is_output_schema_error(exc):
                raise
            return ToolResult.error(f"Error: the tool's result did not match its output schema: {exc}",
                                    tool.mcp_name)
        return ToolResult.from_sdk(result, tool.mcp_name, max_chars=self._owner.max_result_chars,
                                   ui=tool.ui if self._owner.apps else None)

    async def _complete_url_elicitations(self, error: ServerError) -> None:
        """A server answered -32042 (URL elicitation required, 2025-11-25): hand each URL request to the
        elicitation handler; the call is then retried once. Raises ``error``, with the URLs and why, when
        the user did not take them all."""
        data = error.data if isinstance(error.data, dict) else {}
        try:
            requests = [ElicitRequestURLParams.model_validate(item) for item in data.get("elicitations") or []]
        except ValueError:
            requests = []
        if not requests:
            raise error
        why = await self._features.elicit_urls(requests)
        if why is not None:
            urls = ", ".join(str(request.url) for request in requests)
            raise ServerError(error.code, f"{error.message}: the server needs the user to open {urls}; {why}",
                              error.data, method=error.method) from error

    def _progress_callback(self, tool_name: str, ctx: CallContext, deadline: Deadline) -> ProgressDelivery | None:
        handlers: list[tuple[ProgressHandler, Shape]] = [
            (ctx.on_progress, handler_shape(ctx.on_progress, with_tool_name=False))] if ctx.on_progress else []
        handlers += self._notifications.progress_handlers
        if not handlers and not deadline.reset_on_progress:
            return None
        return ProgressDelivery(handlers, tool_name, self.name, code_run=ctx.code_run,
                                on_arrival=deadline.progressed if deadline.reset_on_progress else None)
