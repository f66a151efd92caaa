"""Carrying the caller's ``contextvars`` context to what runs on its behalf on the client's loop.

A request runs on the loop in a copy of the caller's context (``run_coroutine_threadsafe`` copies it),
so its own code, the SDK's spans and LiteLLM see the caller's context variables and OpenTelemetry
span. Two hops do not inherit it and are bridged here:

- A server's request to the client (sampling, elicitation, roots) on a 2025-era connection arrives on
  the session's own task, whose context is the one the client was started in. It is answered in the
  context of the call it belongs to: :class:`CallContexts` remembers the context of every request in
  flight on a connection, and :meth:`CallContexts.context_for` picks the one (the only one; with
  several, the latest of those in the trace the server's ``_meta`` names, else the latest). On
  2026-07-28 connections (and in-memory servers) the request is answered inside the call already.
- Progress notifications, also delivered on the session's task, go to the handlers in the context of
  the call that asked for them (see ``ToolCatalog._progress_callback``).
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from mcp_litellm._core import telemetry

T = TypeVar("T")

class CallContexts:
    """The contexts of the requests in flight on one connection, oldest first."""

    def __init__(self) -> None:
        self._calls: dict[int, contextvars.Context] = {}
        self._serving: dict[int, asyncio.Task[Any] | None] = {}
        """The asyncio task running each request in flight (a server's request answered inside the call
        arrives on it: no context to look up)."""
        self._ids = itertools.count()
        self._settled = asyncio.Event()
        self._settled.set()
        self.made = 0
        """How many requests were made on the owner so far (a pool's test of whether a group was used)."""

    def enter(self) -> int:
        """Remember the context (and the task) of a request of the owner starting in the current task."""
        key = next(self._ids)
        self._calls[key] = contextvars.copy_context()
        self._serving[key] = asyncio.current_task()
        self._settled.clear()
        self.made += 1
        return key

    def leave(self, key: int) -> None:
        """Forget a request :meth:`enter` remembered."""
        self._calls.pop(key, None)
        self._serving.pop(key, None)
        if not self._calls:
            self._settled.set()

    @property
    def in_flight(self) -> int:
        """How many requests are in flight on the owner now."""
        return len(self._calls)

    async def settled(self) -> None:
        """Return once no request is in flight on the owner (at once when none is)."""
        await self._settled.wait()

    def context_for(self, meta: Mapping[str, Any] | None) -> contextvars.Context | None:
        """The context to answer a server's request in; ``None``: the current one is right (the code
        already runs for one of the owner's requests, or none is in flight)."""
        if not self._calls or asyncio.current_task() in self._serving.values():
            return None
        calls = list(self._calls.values())
        wanted = telemetry.trace_id_of(meta)
        if len(calls) > 1 and wanted is not None:
            in_trace = [context for context in calls if telemetry.trace_id_in(context) == wanted]
            calls = in_trace or calls
        return calls[-1]


async def run_in_context(context: contextvars.Context, coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` in a copy of ``context`` (as a task of its own; cancelling the caller cancels it)."""
    task: asyncio.Task[T] = context.run(asyncio.get_running_loop().create_task, coro)
    return await task
