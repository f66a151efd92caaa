"""The one way mcp_litellm calls the user's code: handlers, hooks, callbacks and local tools.

User code may be sync or async. :func:`call_user_code` awaits async code on the calling loop and runs
sync code on a bounded pool of worker threads, never on the calling loop: that loop may be the one
that carries every MCP session of the process, and one slow sync hook there would stall them all.
A sync function that returns an awaitable has it awaited on the calling loop.

The pool's threads are daemon threads (a sync call that never returns cannot keep the interpreter
from exiting), at most :data:`MAX_WORKERS` of them; more calls at once wait in line. Each call runs
in a copy of the caller's context variables. When the caller stops waiting (a timeout, a
cancellation), a sync call that already started runs on by itself: a thread cannot be interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_WORKERS", "call_user_code", "is_async_callable"]

MAX_WORKERS = 40
"""How many threads run sync user code at most (the number ``anyio.to_thread`` allows by default)."""

_THREAD_NAME = "mcp_litellm user code"


def is_async_callable(fn: Any) -> bool:
    """True for an ``async def`` function or method, a ``functools.partial`` of one, or an object whose
    ``__call__`` is ``async def``; False for classes and everything else."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    if inspect.isroutine(fn) or isinstance(fn, type):
        return False
    return inspect.iscoroutinefunction(getattr(type(fn), "__call__", None))  # noqa: B004 - an async __call__


class _Pool:
    """At most ``size`` daemon threads taking jobs from one queue; threads start only when none is idle."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            self._jobs.put(job)
            if self._idle:
                self._idle -= 1  # that idle thread takes this job
            elif len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{_THREAD_NAME} {len(self._threads) + 1}",
                                          daemon=True)
                self._threads.append(thread)
                thread.start()

    def _work(self) -> None:
        while True:
            self._jobs.get()()
            with self._lock:
                self._idle += 1


_pool = _Pool(MAX_WORKERS)


async def call_user_code(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` for sync or async user code: async awaited here, sync on the worker pool."""
    if is_async_callable(fn):
        return await fn(*args, **kwargs)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # the caller stopped waiting
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def job() -> None:
        if future.cancelled():  # the caller gave up while the job waited for a thread: do not start it
            return
        value: Any = None
        error: BaseException | None = None
        try:
            value = context.run(fn, *args, **kwargs)
        except BaseException as exc:
            error = exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody is waiting any more
            loop.call_soon_threadsafe(settle, value, error)

    _pool.submit(job)
    result = await future
    if inspect.isawaitable(result):
        result = await result
    return result
