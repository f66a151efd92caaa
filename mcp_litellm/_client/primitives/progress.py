"""Progress of a tool call: what a progress handler receives, and the delivery of one call's updates.

A progress handler takes one :class:`ProgressUpdate` (``fn(update)``, sync or async). The positional
forms of earlier releases, ``fn(progress, total, message)`` and (for a client's handlers)
``fn(progress, total, message, tool_name)``, keep working: :func:`handler_shape` tells them apart once,
when the handler is registered or the call starts, and nowhere else.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from mcp_litellm._client.session.call_context import run_in_context
from mcp_litellm._core.code_run import CodeRun
from mcp_litellm._core.types import HookResult
from mcp_litellm._core.user_code import call_user_code

__all__ = ["ProgressHandler", "ProgressUpdate", "handler_shape"]

logger = logging.getLogger("mcp_litellm")


@dataclass(frozen=True)
class ProgressUpdate:
    """One progress notification of a tool call, as a progress handler receives it.

    Attributes:
        progress: how far the call is (grows with each update; a task's status updates count 1, 2, ...).
        total: the total the server announced, or ``None`` when it did not say.
        message: the server's message for this update, or ``None``.
        tool: the server's name of the tool whose call reports.
        server: the name of the client (server) the call went to.
    """

    progress: float
    total: float | None
    message: str | None
    tool: str
    server: str


ProgressHandler: TypeAlias = (
    "Callable[[ProgressUpdate], HookResult]"
    " | Callable[[float, float | None, str | None, str], HookResult]"
    " | Callable[[float, float | None, str | None], HookResult]"
)
"""``fn(update)`` taking a :class:`ProgressUpdate`, sync or async. Still accepted: ``fn(progress, total,
message)`` and, for a client's handlers, ``fn(progress, total, message, tool_name)``."""

Shape: TypeAlias = Literal[1, 3, 4]


def handler_shape(fn: Callable[..., Any], *, with_tool_name: bool) -> Shape:
    """How to call progress handler ``fn``: ``1`` with a :class:`ProgressUpdate`; ``3`` or ``4`` with the
    positional arguments of earlier releases (``4`` adds the tool name, for a client's handlers).

    A handler that can take three positional arguments keeps the old form, so every handler written
    for it is called as before; one that takes a single argument gets the update.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature to read (some builtins): the form of earlier releases
        return 3

    def takes(count: int) -> bool:
        try:
            signature.bind(*range(count))
        except TypeError:
            return False
        return True

    if with_tool_name and takes(4):
        return 4
    if takes(3):
        return 3
    if takes(4):
        return 4
    return 1 if takes(1) else 3


class ProgressDelivery:
    """The progress callback of one tool call: its handlers, in the order notifications arrived.

    The SDK starts each progress notification's callback as a task of its own, so without care a
    handler could run after the call returned, or two of one call's updates out of order. Deliveries
    take turns (a fair lock), and the call awaits :meth:`drain` before it returns.
    """

    def __init__(self, handlers: list[tuple[Any, Shape]], tool_name: str, client_name: str, *,
                 code_run: CodeRun | None = None, on_arrival: Callable[[], None] | None = None) -> None:
        self._handlers, self._tool_name, self._client_name = handlers, tool_name, client_name
        self._code_run = code_run
        """The code-mode run the call comes from (what the deprecated ``CodeRun.current()`` answers in a handler)."""
        self._on_arrival = on_arrival
        """Told of each update as it arrives, before any handler runs (the call's deadline, when progress
        restarts its timeout)."""
        self._caller = contextvars.copy_context()  # progress arrives on the session's task: run in the call's
        self._turn = asyncio.Lock()
        self._running = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(self, value: float, total: float | None, message: str | None) -> None:
        if self._on_arrival is not None:
            self._on_arrival()
        if not self._handlers:
            return
        self._running += 1
        self._idle.clear()
        try:
            await run_in_context(self._caller, self._deliver(value, total, message))
        finally:
            self._running -= 1
            if not self._running:
                self._idle.set()

    async def _deliver(self, value: float, total: float | None, message: str | None) -> None:
        update = ProgressUpdate(value, total, message, self._tool_name, self._client_name)
        async with self._turn:
            for handler, shape in self._handlers:
                arguments: tuple[Any, ...] = ((update,) if shape == 1 else
                                              (value, total, message, self._tool_name)[:shape])
                try:
                    with CodeRun.serving(self._code_run):
                        await call_user_code(handler, *arguments)
                except Exception:
                    logger.exception("progress handler for %s on %r failed", self._tool_name, self._client_name)

    async def drain(self, timeout: float) -> None:
        """Wait (up to ``timeout`` seconds) until every progress update that arrived was delivered."""
        await asyncio.sleep(0)  # callbacks the SDK spawned with the answer get to start
        if self._running and timeout <= 0:  # the call's time is up: it does not wait for them
            logger.debug("progress handlers for %s on %r still running as the call ends",
                         self._tool_name, self._client_name)
        elif self._running:
            try:
                await asyncio.wait_for(self._idle.wait(), timeout)
            except asyncio.TimeoutError:
                logger.warning("progress handlers for %s on %r still running %.0f s after the call returned",
                               self._tool_name, self._client_name, timeout)
