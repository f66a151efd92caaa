"""``ClientCore``: what every part of a client may count on, typed once.

:class:`~mcp_litellm.Client` holds its components, each built with explicit dependencies: the session's owner
(``session/owner.py``: the connection on its home loop), the cached list calls (``cached_lists.Listings``), the
tool pins (``pins.ToolPins``) and the client features (``features``). Its catalog side is still assembled from
mixins (``catalog``, ``tasks``, ``resources``, ``prompts``, ``notifications``), each a subclass of
:class:`ClientCore`. The core declares the client's settings, state and components and the methods one part
calls on another (the timeout, the approval of a tool call, the request ``_meta``, ...); ``Client`` and the
mixins implement them. So a mixin type-checks against the real attributes, not against a copy re-declared in
each module, and passing ``self`` where a client is expected (``Tool(client=self)``) needs no cast.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from mcp_litellm._client.cached_lists import Listings
from mcp_litellm._client.features import ClientFeatures
from mcp_litellm._client.listing import CatalogCache
from mcp_litellm._client.primitives.progress import ProgressHandler, Shape
from mcp_litellm._client.primitives.prompt import Completion
from mcp_litellm._client.primitives.tool import Tool
from mcp_litellm._client.primitives.toolset import CallContext
from mcp_litellm._client.session.connection import Connection
from mcp_litellm._client.session.deadline import Deadline
from mcp_litellm._client.session.owner import SessionOwner
from mcp_litellm._client.session.task_protocol import TasksExtension


class ClientCore(ABC):
    """The settings, state and cross-part methods of one client (see the module's docstring)."""

    # -- settings (set by Client.__init__) ---------------------------------------------------------------
    name: str
    transport_type: str
    config: Mapping[str, Any]
    request_timeout: float
    reset_timeout_on_progress: bool
    max_total_timeout: float | None
    with_prefix: bool
    max_result_chars: int | None
    retry_idempotent: bool

    # -- state -------------------------------------------------------------------------------------------
    _session: SessionOwner
    _features: ClientFeatures
    _catalog_cache: CatalogCache
    _listings: Listings
    _progress_handlers: list[tuple[ProgressHandler, Shape]]
    _task_claims: TasksExtension

    # -- the connection: the session's owner (Client builds it) ----------------------------------------
    def _session_loop(self) -> asyncio.AbstractEventLoop | None:
        """The loop this client's session lives on (the ``home=`` of its work), None while it has none."""
        return self._session.home

    @property
    def _connection(self) -> Connection | None:
        """The connection, None while there is none."""
        return self._session.connection

    def _require_connection(self) -> Connection:
        """The live connection; ``TransportError`` when there is none."""
        return self._session.require()

    async def _connected(self, deadline: Deadline | None = None) -> Connection:
        """The connection, started (or restarted) first when needed (within ``deadline``, a call's)."""
        return await self._session.connected(deadline)

    @abstractmethod
    def _timeout(self, timeout: float | None) -> float:
        """A call's timeout: ``timeout``, or the client's ``request_timeout``."""

    @abstractmethod
    async def _approve_tool_call(self, tool: Tool, arguments: dict[str, Any], ctx: CallContext) -> str | None:
        """Ask the human-in-the-loop handler; the reason for a denial, ``None`` when the call may run."""

    # -- across the mixins -------------------------------------------------------------------------------
    @abstractmethod
    def _request_meta(self) -> dict[str, Any] | None:
        """``_meta`` to stamp on a request (``NotificationsMixin``)."""

    @abstractmethod
    async def _list_tools(self, refresh: bool | None, deadline: Deadline | None = None) -> list[Tool]:
        """The tools listing (``CatalogMixin``)."""

    @abstractmethod
    async def _resolve_tool(self, name: str | Tool, parameters: Mapping[str, Any] | None,
                            deadline: Deadline | None = None) -> tuple[Tool, dict[str, Any]]:
        """The tool a call names and its arguments (``CatalogMixin``)."""

    @abstractmethod
    async def _complete(self, ref: Any, argument: str, value: str, context: Mapping[str, str] | None) -> Completion:
        """An argument completion (``PromptsMixin``)."""

    @abstractmethod
    async def _subscription(self, uri: str, subscribe: bool) -> None:
        """Subscribe to (or unsubscribe from) a resource's updates (``NotificationsMixin``)."""


__all__ = ["ClientCore"]
