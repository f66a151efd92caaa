"""``Deadline``: the one absolute deadline of a call, passed down to every step the call waits for.

A tool call waits for more than its ``tools/call`` request: the listing that resolves the tool's name,
a (re)connect, the request itself, and the delivery of its progress updates. Each of these steps
takes what is left of the call's time (:meth:`Deadline.remaining`), never a fresh timeout of its
own, so ``timeout=2`` means two seconds end to end. A retry of the call (after a dropped connection)
gets only what is left too.

With ``reset_on_progress`` (as the TypeScript SDK's ``resetTimeoutOnProgress``), each progress
notification the server sends for the call gives it ``timeout`` seconds again from that moment,
never past ``max_total`` seconds from the start (``maxTotalTimeout``). The running request's timer
is moved with it (:meth:`Deadline.progressed`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp_litellm._core.errors import RequestTimeoutError
from mcp_litellm._core.option_checks import positive_seconds

__all__ = ["Deadline", "check_max_total_timeout"]


def check_max_total_timeout(value: Any, where: str = "max_total_timeout") -> float | None:
    """``value`` as seconds (``None`` stays ``None``); ``ConfigError`` unless it is a positive number."""
    return positive_seconds(value, where, none="for no cap")


class Deadline:
    """When a call must be over, as a ``time.monotonic()`` instant; see the module's docstring.

    Args:
        timeout: the call's timeout in seconds (with ``reset_on_progress``: the longest silence).
        what: the call's method, for the timeout's message (``"tools/call"``).
        reset_on_progress: each progress notification restarts the ``timeout`` seconds.
        max_total: with or without resets, the call never runs longer than this many seconds.
    """

    __slots__ = ("_timer", "at", "cap", "max_total", "reset_on_progress", "timeout", "what")

    def __init__(self, timeout: float, what: str, *, reset_on_progress: bool = False,
                 max_total: float | None = None) -> None:
        now = time.monotonic()
        self.timeout = timeout
        self.what = what
        self.reset_on_progress = reset_on_progress
        self.max_total = max_total
        self.cap = now + max_total if max_total is not None else math.inf
        self.at = min(now + timeout, self.cap)
        self._timer: Any = None

    def remaining(self) -> float:
        """Seconds left (``0.0`` once past)."""
        return max(self.at - time.monotonic(), 0.0)

    @property
    def expired(self) -> bool:
        """True once the deadline has passed."""
        return time.monotonic() >= self.at

    def error(self, server: str, during: str | None = None) -> RequestTimeoutError:
        """The timeout error of this call on ``server`` (``during``: the step the time ran out in)."""
        capped = self.max_total is not None and self.at >= self.cap
        limit = f"its total limit of {round(self.max_total or 0.0, 2)}s" if capped else f"{round(self.timeout, 2)}s"
        in_step = f", while waiting for {during}" if during and during != self.what else ""
        return RequestTimeoutError(f"{self.what} on server {server!r} timed out after {limit}{in_step}; "
                                   "it was cancelled")

    def progressed(self) -> None:
        """A progress notification arrived: with ``reset_on_progress``, the call gets ``timeout`` seconds
        again (within the total cap), and the running request's timer follows."""
        if not self.reset_on_progress:
            return
        self.at = min(time.monotonic() + self.timeout, self.cap)
        self._reschedule()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while a person decides (a tool call's approval): the time is added back."""
        started = time.monotonic()
        try:
            yield
        finally:
            spent = time.monotonic() - started
            self.at += spent
            self.cap += spent

    @contextmanager
    def timing(self, timer: Any) -> Iterator[None]:
        """While a request runs under ``timer`` (an ``asyncio.Timeout``, or an anyio cancel scope on
        3.10), progress moves it."""
        self._timer = timer
        try:
            yield
        finally:
            self._timer = None

    def _reschedule(self) -> None:
        timer = self._timer
        if timer is None:
            return
        if hasattr(timer, "reschedule"):  # asyncio.Timeout (3.11+)
            if timer.expired():
                return
            timer.reschedule(asyncio.get_running_loop().time() + self.remaining())
        else:  # pragma: no cover - anyio.CancelScope (3.10)
            import anyio

            timer.deadline = anyio.current_time() + self.remaining()
