"""The one event loop that owns every MCP session.

By default it is a background loop on a daemon thread of its own. Sessions are opened and closed by
tasks on this loop only, so a client can be used from any thread and any event loop: synchronous
methods block on a concurrent future, asynchronous methods await a wrapped one, and cancelling the
caller cancels the work here. Calls made from the loop itself (a handler that calls back into a
client) run directly.

An async program can instead hand its own running loop over (:func:`adopt`, public as
``ml.use_running_loop()``): then its async calls run directly, without crossing threads, and the
background loop is used again once that loop has closed.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, TypeVar

from mcp_litellm._core.errors import MCPLiteLLMError, plain_traceback

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
# A loop handed over by the program (adopt()), and the thread it runs on; used while it is open.
_adopted: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None


def adopt(loop: asyncio.AbstractEventLoop) -> None:
    """Make ``loop`` (running in the calling thread) the loop that owns sessions, until it closes."""
    global _adopted
    _adopted = (loop, threading.current_thread())


def adopted_loop() -> asyncio.AbstractEventLoop | None:
    """The loop handed over with :func:`adopt`, or None when there is none or it has closed."""
    adopted = _adopted
    if adopted is None or adopted[0].is_closed():
        return None
    return adopted[0]


async def _serve_forever() -> None:
    """The background loop's root task, which never ends.

    The loop runs this with ``run_until_complete`` rather than ``run_forever`` because anyio (under
    the SDK) takes that task as the loop's root task and keeps its worker threads for the root task's
    lifetime. Under ``run_forever`` each request's own task became the root, so every call of a sync
    tool on an in-process server started and ended a thread (twice the CPU per call).
    """
    await asyncio.get_running_loop().create_future()


def get_loop() -> asyncio.AbstractEventLoop:
    """Return the loop that owns sessions: an adopted open loop, else the background loop (started on first use)."""
    global _loop, _thread
    adopted = adopted_loop()
    if adopted is not None:
        return adopted
    loop = _loop
    if loop is not None and not loop.is_closed():
        return loop
    with _lock:
        if _loop is None or _loop.is_closed():
            ready = threading.Event()
            new_loop = asyncio.new_event_loop()

            def run() -> None:
                asyncio.set_event_loop(new_loop)
                new_loop.call_soon(ready.set)
                new_loop.run_until_complete(_serve_forever())

            _thread = threading.Thread(target=run, name="mcp-litellm-loop", daemon=True)
            _thread.start()
            ready.wait()
            _loop = new_loop
        return _loop


def in_loop_thread() -> bool:
    """True when called from the thread of the loop that owns sessions (where blocking on it would deadlock)."""
    current = threading.current_thread()
    adopted = _adopted
    if adopted is not None and current is adopted[1] and adopted[0].is_running():
        return True
    return _thread is not None and current is _thread


def _owner_loop_for_blocking_call() -> asyncio.AbstractEventLoop:
    loop = get_loop()
    if not loop.is_running():  # only an adopted loop can be open but idle
        raise RuntimeError(
            "a synchronous mcp_litellm method was called while the event loop given to ml.use_running_loop() "
            "is not running, so nothing could answer it; call it while that loop runs, or use the async twin"
        )
    return loop


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on the background loop and block until it finishes.

    Works in plain scripts, in worker threads, and while another event loop runs in the calling
    thread (a notebook cell). Ctrl-C cancels the work on the loop before re-raising.
    """
    if in_loop_thread():
        coro.close()
        raise RuntimeError(
            "a synchronous mcp_litellm method was called on the thread of the event loop that runs the MCP "
            "sessions (from an async handler, or after ml.use_running_loop()), where it would block that loop; "
            "use the async twin (the 'a'-prefixed method) there instead"
        )
    try:
        loop = _owner_loop_for_blocking_call()
    except RuntimeError:
        coro.close()
        raise
    # Ctrl-C may strike anywhere here, even inside run_coroutine_threadsafe once the work has started on
    # the loop: the task is noted as it starts, so the work is cancelled whenever the caller gave up.
    started: list[asyncio.Task[Any]] = []
    abandoned = threading.Event()

    async def noted() -> T:
        task = asyncio.current_task()
        if task is not None:
            started.append(task)
        if abandoned.is_set():
            coro.close()
            raise asyncio.CancelledError
        return await coro

    try:
        return asyncio.run_coroutine_threadsafe(noted(), loop).result()
    except MCPLiteLLMError as error:
        raise plain_traceback(error)  # noqa: B904 - the same error, its own cause kept; its loop frames dropped
    except BaseException:
        abandoned.set()
        for task in started:
            loop.call_soon_threadsafe(task.cancel)
        raise


async def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the background loop from any event loop; cancellation propagates."""
    loop = get_loop()
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:  # pragma: no cover - called without a loop (trio/sniffio mismatch)
        running = None
    try:
        if running is loop:
            return await coro
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)
        return await asyncio.wrap_future(future)
    except MCPLiteLLMError as error:
        raise plain_traceback(error)  # noqa: B904 - the same error, its own cause kept; its loop frames dropped


def iterate_sync(agen: AsyncIterator[T]) -> Iterator[T]:
    """Iterate an async iterator from synchronous code, one item at a time, on the background loop.

    The iterator runs inside one task on the loop and advances only when the caller asks for the next
    item. Leaving the ``for`` loop early (``break``, an exception, Ctrl-C) closes the iterator there,
    so its cleanup runs before this generator returns.
    """
    if in_loop_thread():
        raise RuntimeError(
            "a synchronous mcp_litellm iterator was used on the thread of the event loop that runs the MCP "
            "sessions (from an async handler, or after ml.use_running_loop()); use the async twin instead"
        )
    loop = _owner_loop_for_blocking_call()
    results: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
    demand: asyncio.Queue[None] | None = None
    ready = threading.Event()

    async def pump() -> None:
        nonlocal demand
        demand = asyncio.Queue()
        ready.set()
        try:
            while True:
                await demand.get()
                try:
                    item = await agen.__anext__()
                except StopAsyncIteration:
                    results.put(("done", None))
                    return
                except BaseException as exc:
                    results.put(("error", exc))
                    if isinstance(exc, asyncio.CancelledError):
                        raise
                    return
                results.put(("item", item))
        finally:
            close = getattr(agen, "aclose", None)
            if close is not None:
                await close()

    future = asyncio.run_coroutine_threadsafe(pump(), loop)
    ready.wait()
    try:
        while True:
            loop.call_soon_threadsafe(demand.put_nowait, None)  # type: ignore[union-attr]
            kind, value = results.get()
            if kind == "item":
                yield value
            elif kind == "done":
                return
            elif isinstance(value, MCPLiteLLMError):
                raise plain_traceback(value)
            else:
                raise value
    finally:
        if not future.done():
            future.cancel()
            concurrent.futures.wait([future], timeout=30)
