"""``ClientGroup``: many servers used as one: started together, stopped together, tools merged.

Servers start concurrently (startup takes about as long as the slowest server). A group's work runs
where its clients' sessions live: started from async code, on the caller's loop, so its async calls
there cross no thread; started from sync code, on the background loop (see ``_client/session/loop.py``).

Tool names never collide: when two servers offer the same name, both tools get their server prefix
(``"{server}__{tool}"``); a server configured with ``with_prefix: false`` makes such a collision a
``ConfigError`` instead.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from mcp_litellm._client.apps import AppResource
from mcp_litellm._client.client import Client
from mcp_litellm._client.options import GroupClientOptions, check_option_names
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.session.loop import run_async, run_sync
from mcp_litellm._core.errors import (
    ConfigError,
    MCPLiteLLMError,
    NotFoundError,
    TransportError,
    UnsupportedFeature,
)
from mcp_litellm._core.naming import distinct_prefixes
from mcp_litellm._core.redact import redact_chain, shown_value
from mcp_litellm._servers.config_file import ServerConfig, select_configs
from mcp_litellm._servers.group_start import as_library_error, start_all, start_failure
from mcp_litellm._servers.group_tools import GroupTools
from mcp_litellm._servers.merged_tools import merge_tools
from mcp_litellm._servers.resource_owner import find_one, offers, resource_owner

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from mcp_litellm._client.primitives.progress import ProgressHandler
    from mcp_litellm._client.primitives.prompt import Prompt
    from mcp_litellm._client.primitives.resource import Resource, ResourceTemplate
    from mcp_litellm._client.primitives.task import Task
    from mcp_litellm._client.primitives.tool import Tool, ToolResult
    from mcp_litellm._core.usage import Usage

logger = logging.getLogger("mcp_litellm")
_Item = TypeVar("_Item")

FAILED_TO_START = "server %r failed to start: %s"
"""The log message (``strict=False``) for a server that did not start; the CLI reports these itself."""

GroupSource: TypeAlias = "str | os.PathLike[str] | Mapping[str, Any] | Iterable[Client]"
"""A config file path, a parsed config mapping, ``{name: ServerConfig}`` (``load_config``'s result), or clients."""


class ClientGroup:
    """Several MCP servers used together; what :func:`establish_connection` yields.

    ``group["name"]`` is that server's :class:`Client`; iterating yields the running clients.
    ``tools()``, ``resources()``, ``prompts()`` and ``resource_templates()`` merge every server's
    lists (each with an ``a``-prefixed async twin).

    Args:
        source: a config file path (JSON or YAML, see :func:`load_config`), a config mapping,
            ``load_config``'s result, or already created clients (the group then starts and stops them).
        strict: if a server fails to start, stop all and raise (``True``), or keep the others running
            and record the failure in :attr:`failed` (``False``).
        with_prefix: ``None`` (default) prefixes tool names only where two servers collide; ``True``
            always prefixes; ``False`` never does (a collision raises ``ConfigError``). A server's own
            ``with_prefix`` setting in the config wins.
        servers: start only these servers (names from the config).
        **client_options: keyword arguments for every client built from a config (for example
            ``request_timeout``, ``tool_pins`` or client-feature handlers); a server's own settings win.
            ``tool_pins`` also applies to given clients that have no pins of their own.
    """

    def __init__(
        self,
        source: GroupSource,
        *,
        strict: bool = True,
        with_prefix: bool | None = None,
        servers: Iterable[str] | None = None,
        **client_options: Unpack[GroupClientOptions],
    ) -> None:
        check_option_names(client_options, "ClientGroup")
        if with_prefix not in (None, True, False):
            raise ConfigError(f"with_prefix must be True, False or None, got {shown_value(with_prefix)}")
        self.strict = strict
        self.with_prefix = with_prefix
        self.failed: dict[str, MCPLiteLLMError] = {}
        """Servers that failed to start (``strict=False``), with their errors."""
        self.configs: dict[str, ServerConfig] = {}
        """The config of each server built from a config file or mapping."""
        self._clients: dict[str, Client] = {}
        made, disabled = self._resolve(source, servers, client_options)
        self.disabled: list[str] = disabled
        """Servers the config marks ``disabled``: never started (their names, in config order)."""
        for client, server_config in made:
            if client.name in self._clients:
                raise ConfigError(f"two servers are named {client.name!r}; server names in a group must be unique")
            self._clients[client.name] = client
            if server_config is not None:
                self.configs[client.name] = server_config
            elif (pins := client_options.get("tool_pins")) is not None and client._tool_pins is None:
                client._tools.use_pins(pins)
        self._prefixes = distinct_prefixes(list(self._clients))
        self._tool_set = GroupTools(self)

    # -- construction --------------------------------------------------------------------------------

    @staticmethod
    def _resolve(source: GroupSource, only: Iterable[str] | None,
                 client_options: GroupClientOptions) -> tuple[list[tuple[Client, ServerConfig | None]], list[str]]:
        """The clients to run (with their configs) and the names of the disabled servers."""
        if isinstance(source, Client):
            source = [source]
        if isinstance(source, str | os.PathLike | Mapping):
            configs = select_configs(source, only)
        elif isinstance(source, Iterable):
            clients = list(source)
            bad = [type(c).__name__ for c in clients if not isinstance(c, Client)]
            if bad:
                raise ConfigError(f"a client group takes Client objects, a config path or a mapping; got {bad[0]}")
            wanted = set(only) if only is not None else None
            return [(c, None) for c in clients if wanted is None or c.name in wanted], []
        else:
            raise ConfigError(f"a client group takes a config path, a mapping or clients, got {type(source).__name__}")
        made: list[tuple[Client, ServerConfig | None]] = []
        disabled: list[str] = []
        for server_config in configs.values():
            if server_config.disabled:
                logger.debug("server %r is disabled in its config; not starting it", server_config.name)
                disabled.append(server_config.name)
                continue
            made.append((server_config.client(**client_options), server_config))
        return made, disabled

    # -- lifecycle -----------------------------------------------------------------------------------

    def _session_loop(self) -> asyncio.AbstractEventLoop | None:
        """The home loop of the group's work (its methods' ``home=``): its first client's with a
        session, else None, so the group's coroutine runs on the caller's loop and its clients open
        their sessions there. A client on another loop is reached from there by its own routing."""
        for client in self._clients.values():
            loop = client._session_loop()
            if loop is not None:
                return loop
        return None

    async def _start(self) -> None:
        pending = [c for c in self._clients.values() if not c.is_alive()]
        try:
            failures = await start_all(pending, strict=self.strict)
        except BaseException:
            await self._stop()
            raise
        if not failures:
            return
        fatal = next((e for e in failures.values() if not isinstance(e, Exception)), None)
        if self.strict or fatal is not None:
            await self._stop()
            if fatal is not None:
                raise fatal
            raise start_failure(failures, len(self._clients))
        for name, error in failures.items():
            client = self._clients.pop(name)
            await client.astop()
            self.failed[name] = as_library_error(name, error)
            logger.warning(FAILED_TO_START, name, self.failed[name])

    async def _stop(self) -> None:
        clients = list(self._clients.values())
        results = await asyncio.gather(*(c.astop() for c in clients), return_exceptions=True)
        for client, result in zip(clients, results, strict=True):
            if isinstance(result, BaseException):
                logger.warning("stopping server %r failed: %s", client.name, result)

    def start(self) -> ClientGroup:
        """Start every server concurrently; see the class docs for what ``strict`` does on a failure."""
        try:
            run_sync(self._start(), home=self._session_loop())
        except BaseException:
            run_sync(self._stop(), home=self._session_loop())
            raise
        return self

    async def astart(self) -> ClientGroup:
        """Async twin of :meth:`start`."""
        try:
            await run_async(self._start(), home=self._session_loop())
        except BaseException:
            await run_async(self._stop(), home=self._session_loop())
            raise
        return self

    def stop(self) -> None:
        """Stop every server (their processes are terminated)."""
        run_sync(self._stop(), home=self._session_loop())

    async def astop(self) -> None:
        """Async twin of :meth:`stop`."""
        await run_async(self._stop(), home=self._session_loop())

    def __enter__(self) -> ClientGroup:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    async def __aenter__(self) -> ClientGroup:
        return await self.astart()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.astop()

    # -- the clients ---------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The names of the servers in the group (failed ones excluded)."""
        return list(self._clients)

    def __getitem__(self, name: str) -> Client:
        client = self._clients.get(name)
        if client is not None:
            return client
        if name in self.failed:
            error = self.failed[name]
            redact_chain(error)
            unavailable = TransportError(f"server {name!r} is not available: it failed to start ({error})")
            unavailable.server = name
            raise unavailable from error
        disabled = (f"server {name!r} is disabled in the config (\"disabled\": true), so it was not started; "
                    "remove that setting to use it") if name in self.disabled else None
        raise NotFoundError("server", name, self._clients, message=disabled)

    def get(self, name: str) -> Client | None:
        """The client named ``name``, or ``None``."""
        return self._clients.get(name)

    @property
    def sampling_usage(self) -> dict[str, Usage]:
        """Each server's :attr:`Client.sampling_usage` (tokens and USD its sampling requests cost), by name."""
        return {name: client.sampling_usage for name, client in self._clients.items()}

    def __contains__(self, name: object) -> bool:
        return name in self._clients

    def __iter__(self) -> Iterator[Client]:
        return iter(list(self._clients.values()))

    def __len__(self) -> int:
        return len(self._clients)

    def __repr__(self) -> str:
        alive = sum(1 for c in self._clients.values() if c.is_alive())
        failed = f", failed={sorted(self.failed)}" if self.failed else ""
        return f"ClientGroup(servers={self.names}, alive={alive}{failed})"

    # -- merged listings -----------------------------------------------------------------------------

    async def _gather(self, fetch: Callable[[Client], Awaitable[list[_Item]]], what: str,
                      capability: str) -> list[tuple[Client, list[_Item]]]:
        """``fetch`` from every server that offers ``capability``; errors raise (``strict``) or are logged."""
        clients = [c for c in self._clients.values() if offers(c, capability)]
        results = await asyncio.gather(*(fetch(c) for c in clients), return_exceptions=True)
        collected: list[tuple[Client, list[_Item]]] = []
        for client, result in zip(clients, results, strict=True):
            if isinstance(result, UnsupportedFeature):  # (a method-not-found listing is empty: the client's rule)
                continue
            if isinstance(result, BaseException):
                if self.strict or not isinstance(result, MCPLiteLLMError):
                    raise result
                logger.warning("listing %s of server %r failed: %s", what, client.name, result)
                continue
            collected.append((client, result))
        return collected

    def _prefix_mode(self, client: Client) -> bool | None:
        if client.with_prefix:
            return True
        server_config = self.configs.get(client.name)
        if server_config is not None and server_config.with_prefix is not None:
            return server_config.with_prefix
        return self.with_prefix

    async def _tools(self, include: Sequence[str] | None, exclude: Sequence[str] | None,
                     refresh: bool) -> list[Tool]:
        listed = await self._gather(lambda c: c.atools(refresh=refresh), "tools", "tools")
        return merge_tools(listed, self._prefixes, self._prefix_mode, include, exclude)

    def tools(self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None, *,
              refresh: bool = False) -> list[Tool]:
        """Every server's tools, with unique provider-safe names.

        ``include`` / ``exclude`` are tool names or globs (``"read_*"``), matched against the tool's
        name in the group and its name on its server; ``"{server}__{glob}"`` (``"fs__*"``) matches
        that server's tools whether or not they are prefixed. The config's per-server lists apply first.
        """
        return run_sync(self._tools(include, exclude, refresh), home=self._session_loop())

    async def atools(self, include: Sequence[str] | None = None, exclude: Sequence[str] | None = None, *,
                     refresh: bool = False) -> list[Tool]:
        """Async twin of :meth:`tools`."""
        return await run_async(self._tools(include, exclude, refresh), home=self._session_loop())

    def tool(self, name: str, *, refresh: bool = False) -> Tool:
        """The tool called ``name`` in the group (or on its server, when only one server has it, or
        ``"{server}__{tool}"``, its name when several servers offer it, whether or not it is prefixed here)."""
        return run_sync(self._tool_set.find(name, refresh), home=self._session_loop())

    async def atool(self, name: str, *, refresh: bool = False) -> Tool:
        """Async twin of :meth:`tool`."""
        return await run_async(self._tool_set.find(name, refresh), home=self._session_loop())

    def read_ui(self, tool: str | Tool) -> AppResource:
        """The interface (MCP Apps) of the group's tool ``tool`` (a :class:`Tool` or its name in the group),
        read from its server: see :meth:`Client.read_ui <mcp_litellm.Client.read_ui>`."""
        return run_sync(self._read_ui(tool), home=self._session_loop())

    async def aread_ui(self, tool: str | Tool) -> AppResource:
        """Async twin of :meth:`read_ui`."""
        return await run_async(self._read_ui(tool), home=self._session_loop())

    async def _read_ui(self, tool: str | Tool) -> AppResource:
        found = await self._tool_set.find(tool, False) if isinstance(tool, str) else tool
        if not isinstance(found.client, Client):
            raise ConfigError(f"tool {found.name!r} does not come from an MCP server of this group")
        return await found.client.aread_ui(found)

    async def list_tools(self) -> list[Tool]:
        """The group's tools, to offer a model (:class:`~mcp_litellm._client.primitives.toolset.Toolset`): as
        :meth:`atools`, each server that cannot list them now (down, or not answering) counting with the tools it
        last listed, whatever ``strict`` says (:meth:`Client.list_tools <mcp_litellm.Client.list_tools>`)."""
        return await run_async(self._tool_set.list_tools(), home=self._session_loop())

    async def _offered_tools(self, refresh: bool) -> list[Tool]:
        """Every server's tools, a server down counting with those it last listed: what the group offers a
        model, and where its calls look their tool up (a server down never fails another server's call)."""
        listed = await self._gather(lambda c: c._offered_tools(refresh), "tools", "tools")
        return merge_tools(listed, self._prefixes, self._prefix_mode, None, None)

    async def call_tool(self, name: str, arguments: Mapping[str, object] | None = None,
                        ctx: CallContext | None = None) -> ToolResult:
        """Call the group's tool ``name`` with ``arguments`` as ``ctx`` says (the ``Toolset`` interface), on
        the tool's own client; ``ctx.timeout`` covers the lookup of the tool too. Without ``ctx``, a call of the
        program's own with each server's settings (as :meth:`aexecute_tool`)."""
        return await run_async(self._tool_set.call_tool(name, arguments or {}, ctx or CallContext()),
                               home=self._session_loop())

    def execute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                     timeout: float | None = None, on_progress: ProgressHandler | None = None,
                     task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                     max_total_timeout: float | None = None) -> ToolResult:
        """Call tool ``name`` (its name in the group, or its server's name for it when only one server has
        it, or a :class:`Tool` of one of the group's servers) with ``parameters``; see
        :meth:`Client.execute_tool` (``task=True`` runs a tool that supports it as a task). ``timeout`` covers
        the lookup of the tool too."""
        ctx = CallContext(timeout=timeout, on_progress=on_progress, task=task,
                          reset_timeout_on_progress=reset_timeout_on_progress, max_total_timeout=max_total_timeout)
        return run_sync(self._tool_set.execute(name, parameters, ctx), home=self._session_loop())

    async def aexecute_tool(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                            timeout: float | None = None, on_progress: ProgressHandler | None = None,
                            task: bool | None = None, reset_timeout_on_progress: bool | None = None,
                            max_total_timeout: float | None = None) -> ToolResult:
        """Async twin of :meth:`execute_tool`."""
        ctx = CallContext(timeout=timeout, on_progress=on_progress, task=task,
                          reset_timeout_on_progress=reset_timeout_on_progress, max_total_timeout=max_total_timeout)
        return await run_async(self._tool_set.execute(name, parameters, ctx), home=self._session_loop())

    def start_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                   ttl: float | None = None, timeout: float | None = None) -> Task:
        """Start the group's tool ``name`` as a task on its server and return its :class:`~mcp_litellm.Task`
        (see :meth:`Client.start_task`); ``timeout`` covers the lookup of the tool too."""
        return run_sync(self._tool_set.start_task(name, parameters, ttl, timeout), home=self._session_loop())

    async def astart_task(self, name: str | Tool, parameters: Mapping[str, object] | None = None, *,
                          ttl: float | None = None, timeout: float | None = None) -> Task:
        """Async twin of :meth:`start_task`."""
        return await run_async(self._tool_set.start_task(name, parameters, ttl, timeout), home=self._session_loop())

    def pin_tools(self, names: Iterable[str] | str | None = None) -> dict[str, list[str]]:
        """Accept the current tool definitions of every server with ``tool_pins`` (see
        :meth:`Client.pin_tools`); ``names`` (a tool's name on its server, ``"{server}__{tool}"`` or its
        name in the group) limits it to those tools. Returns the tools pinned, by server."""
        return run_sync(self._tool_set.pin(names), home=self._session_loop())

    async def apin_tools(self, names: Iterable[str] | str | None = None) -> dict[str, list[str]]:
        """Async twin of :meth:`pin_tools`."""
        return await run_async(self._tool_set.pin(names), home=self._session_loop())

    async def _read(self, uri: str) -> str | bytes:
        if not isinstance(uri, str) or not uri:
            raise ConfigError(f"read_resource needs a resource uri (a non-empty str), got {shown_value(uri)}")
        resources = await self._merged(lambda c: c.aresources(), "resources", "resources")
        listed = any(str(r.uri) == uri for r in resources)  # then the templates are not needed (nor fetched)
        templates: list[ResourceTemplate] = [] if listed else await self._merged(
            lambda c: c.aresource_templates(), "resource_templates", "resources")
        owner, _listed = resource_owner(uri, resources, templates, self._clients.values(),
                                        choose="read it from one: group[name].read_resource(uri)")
        value: str | bytes = await owner.aread_resource(uri)
        return value

    def read_resource(self, uri: str) -> str | bytes:
        """Read the resource at ``uri`` from the server that lists it (or whose resource template fits it):
        ``str`` for text, ``bytes`` for blobs; ``NotFoundError`` when no server has it."""
        return run_sync(self._read(uri), home=self._session_loop())

    async def aread_resource(self, uri: str) -> str | bytes:
        """Async twin of :meth:`read_resource`."""
        return await run_async(self._read(uri), home=self._session_loop())

    async def _merged(self, fetch: Callable[[Client], Awaitable[list[_Item]]], what: str,
                      capability: str) -> list[_Item]:
        listed = await self._gather(fetch, what, capability)
        return [item for _, items in listed for item in items]

    def resources(self, *, refresh: bool = False) -> list[Resource]:
        """Every server's resources (each keeps its ``client``)."""
        return run_sync(self._merged(lambda c: c.aresources(refresh=refresh), "resources", "resources"),
                        home=self._session_loop())

    async def aresources(self, *, refresh: bool = False) -> list[Resource]:
        """Async twin of :meth:`resources`."""
        return await run_async(self._merged(lambda c: c.aresources(refresh=refresh), "resources", "resources"),
                               home=self._session_loop())

    def resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """Every server's resource templates."""
        return run_sync(self._merged(lambda c: c.aresource_templates(refresh=refresh), "resource_templates",
                                     "resources"), home=self._session_loop())

    async def aresource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        """Async twin of :meth:`resource_templates`."""
        return await run_async(self._merged(lambda c: c.aresource_templates(refresh=refresh), "resource_templates",
                                            "resources"), home=self._session_loop())

    async def _one(self, find: Callable[[Client], Awaitable[_Item]], what: str, capability: str,
                   name: str) -> _Item:
        async def listed() -> list[object]:
            return await self._merged(lambda c: getattr(c, f"a{capability}")(), capability, capability)

        return await find_one(self._clients.values(), find, what, capability, name, strict=self.strict,
                              listed=listed)

    def resource(self, name: str, *, refresh: bool = False) -> Resource:
        """The resource called ``name`` (or with that uri or title) on the one server that has it (see
        :meth:`Client.resource`); ``NotFoundError`` when none does, ``ConfigError`` when several do."""
        return run_sync(self._one(lambda c: c.aresource(name, refresh=refresh), "resource", "resources", name),
                        home=self._session_loop())

    async def aresource(self, name: str, *, refresh: bool = False) -> Resource:
        """Async twin of :meth:`resource`."""
        return await run_async(self._one(lambda c: c.aresource(name, refresh=refresh), "resource", "resources",
                                         name), home=self._session_loop())

    def prompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """The prompt called ``name`` on the one server that has it (see :meth:`Client.prompt`);
        ``NotFoundError`` when none does, ``ConfigError`` when several do."""
        return run_sync(self._one(lambda c: c.aprompt(name, refresh=refresh), "prompt", "prompts", name),
                        home=self._session_loop())

    async def aprompt(self, name: str, *, refresh: bool = False) -> Prompt:
        """Async twin of :meth:`prompt`."""
        return await run_async(self._one(lambda c: c.aprompt(name, refresh=refresh), "prompt", "prompts", name),
                               home=self._session_loop())

    def prompts(self, *, refresh: bool = False) -> list[Prompt]:
        """Every server's prompts."""
        return run_sync(self._merged(lambda c: c.aprompts(refresh=refresh), "prompts", "prompts"),
                        home=self._session_loop())

    async def aprompts(self, *, refresh: bool = False) -> list[Prompt]:
        """Async twin of :meth:`prompts`."""
        return await run_async(self._merged(lambda c: c.aprompts(refresh=refresh), "prompts", "prompts"),
                               home=self._session_loop())
