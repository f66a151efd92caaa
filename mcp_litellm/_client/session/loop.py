"""Which event loop runs a client's work: the loop its session lives on (its home), or the caller's.

A session lives on the loop it was opened on, and every request of the client runs there (the SDK's
streams and the client's own tasks belong to that loop):

- Opened from async code (``async with client``, ``await client.astart()``, a first async call), the
  home is the caller's running loop, so that loop's async calls run directly, without crossing threads.
- Opened from sync code, the home is the background loop: a loop on a daemon thread of its own,
  started on first use. Sync methods always run there (or on the client's home when it has one), so
  they work in scripts, worker threads and inside a running loop (a notebook cell).
- A ``ClientGroup`` goes where its clients' sessions live, and its clients open theirs where the
  group's work runs: ``async with group`` puts them all on the caller's loop. A pool and its users'
  groups live on the background loop.
- ``ml.use_running_loop()`` (:func:`adopt`) makes the calling loop the home of every session opened
  from then on, from any thread, until it closes.

A call from another thread or loop than the client's home crosses over to it (a blocking call blocks
on a concurrent future; an async one awaits a wrapped one; cancelling the caller cancels the work).
A blocking call on the home's own thread would deadlock and raises instead. A home loop that has
closed (``asyncio.run`` returned) ended the client's session as it cancelled its tasks: the next call
reconnects, on the background loop (see ``Client._connected``), where the client then stays, so a
program that calls ``asyncio.run`` again and again does not restart its servers each time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import enum
import queue
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator
from typing import Any, Literal, TypeAlias, TypeVar

from mcp_litellm._core.errors import MCPLiteLLMError, TransportError, outside_frames, plain_traceback

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_thread: threading.Thread | None = None
# A loop handed over by the program (adopt()), and the thread it runs on; used while it is open.
_adopted: tuple[asyncio.AbstractEventLoop, threading.Thread] | None = None
# Loops whose thread is blocked in a synchronous call now: work sent to them would never run.
_blocked: dict[asyncio.AbstractEventLoop, int] = {}
_running_loop = asyncio._get_running_loop  # the C helper: None outside a loop (no exception raised)


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


class _Elsewhere(enum.Enum):
    ELSEWHERE = "elsewhere"


ELSEWHERE = _Elsewhere.ELSEWHERE
"""``home=`` of work that belongs to no client's session (a pool's, a chat's): it runs on :func:`get_loop`."""

Home: TypeAlias = "asyncio.AbstractEventLoop | Literal[_Elsewhere.ELSEWHERE] | None"
"""Where a call's work belongs, as its caller says (``run_sync(coro, home=...)``): the loop a client's session
lives on, ``None`` for a client that has no session yet (it opens one where the work runs), or
:data:`ELSEWHERE`."""


def _settled(home: Home) -> Home:
    """A home loop that has closed (``asyncio.run`` returned) is no home: such a client reconnects on
    :func:`get_loop`, which outlives the short-lived loops, once."""
    return ELSEWHERE if isinstance(home, asyncio.AbstractEventLoop) and home.is_closed() else home


def run_sync(coro: Coroutine[Any, Any, T], *, home: Home = ELSEWHERE) -> T:
    """Run ``coro`` on ``home`` (its client's home loop, see the module docs) and block until it finishes.

    Works in plain scripts, in worker threads, and while another event loop runs in the calling
    thread (a notebook cell). Ctrl-C cancels the work on the loop before re-raising.
    """
    caller = _running_loop()
    own_thread = False
    try:
        if in_loop_thread():
            raise RuntimeError(
                "a synchronous mcp_litellm method was called on the thread of the event loop that runs the MCP "
                "sessions (from an async handler, or after ml.use_running_loop()), where it would block that loop; "
                "use the async twin (the 'a'-prefixed method) there instead"
            )
        home = _settled(home)
        if home is None or home is ELSEWHERE:
            loop = _owner_loop_for_blocking_call()
        elif home is caller:
            # The session lives on this thread's loop, which this call blocks: what needs no session (a cached
            # listing, a tool looked up by name) is answered on the background loop; what reaches the session
            # there raises at once (run_on sees this loop blocked), with _OWN_THREAD's words.
            loop, own_thread = _owner_loop_for_blocking_call(), True
        elif not home.is_running():
            if caller is None:  # the client's loop is idle and this thread is free: run it here, for this call
                result: T = home.run_until_complete(coro)
                return result
            raise RuntimeError(_not_running(home))
        else:
            loop = home
    except BaseException:
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

    if caller is not None:
        _blocked[caller] = _blocked.get(caller, 0) + 1
    try:
        return _wait_for(asyncio.run_coroutine_threadsafe(noted(), loop))
    except concurrent.futures.CancelledError:
        if abandoned.is_set():
            raise
        # Not by this caller (Ctrl-C raises KeyboardInterrupt here): the loop there ended during the call.
        raise TransportError(_ENDED_DURING_CALL) from None
    except _BlockedLoop:
        if own_thread:
            raise RuntimeError(_OWN_THREAD) from None
        raise
    except MCPLiteLLMError as error:
        # The same error, its own cause kept and its frames inside the library dropped: the user's traceback
        # ends here, so this line stays a plain raise (B904 is ignored for this file in pyproject.toml).
        raise plain_traceback(error)
    except BaseException as error:
        abandoned.set()
        for task in started:
            loop.call_soon_threadsafe(task.cancel)
        if isinstance(error, Exception):  # LiteLLM's or a callback's: from where it was raised, not our plumbing
            raise outside_frames(error)
        raise
    finally:
        if caller is not None:
            _unblock(caller)


_SIGNAL_CHECK = 0.2
"""How often a blocked synchronous call wakes to let a pending Ctrl-C through (seconds)."""


def _wait_for(future: concurrent.futures.Future[T]) -> T:
    """``future.result()``, waited for in short slices. A signal that lands just as the thread parks on the
    future's lock runs its handler but never wakes the thread, so one long wait could swallow a Ctrl-C until the
    work ended by itself; each slice's end lets a pending KeyboardInterrupt through within ``_SIGNAL_CHECK``."""
    while not concurrent.futures.wait((future,), timeout=_SIGNAL_CHECK).done:
        pass
    return future.result()  # a TimeoutError the work raised is its own, never taken for the slice's end


class _BlockedLoop(RuntimeError):
    """Work for a session whose loop's thread is blocked in a synchronous call: it could never run."""


_OWN_THREAD = ("a synchronous mcp_litellm method was called on the thread whose event loop runs this client's "
               "session (it was started from async code there) and needed that session, which it would block; use "
               "the async twin (await the 'a'-prefixed method) there instead, or start the client from sync code")


_ENDED_DURING_CALL = ("the event loop this client's session lived on ended during the call, which was cancelled "
                      "there; the next call reconnects")


def _unblock(loop: asyncio.AbstractEventLoop) -> None:
    count = _blocked.pop(loop, 1) - 1
    if count:
        _blocked[loop] = count


def _not_running(loop: asyncio.AbstractEventLoop) -> str:
    return (f"this mcp_litellm client's session lives on an event loop that is not running now ({loop!r}: the "
            "loop it was started on); call it while that loop runs, or stop it there and start it again here")


async def run_on(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` run on ``loop`` (another loop, running in another thread); cancellation propagates."""
    if loop in _blocked or not loop.is_running():
        coro.close()
        if loop in _blocked:
            raise _BlockedLoop(
                "an mcp_litellm client's session lives on the event loop of a thread that is blocked in a "
                "synchronous mcp_litellm call, so it cannot answer; use the async twins (await the 'a'-prefixed "
                "methods) on that loop's thread instead"
            )
        raise RuntimeError(_not_running(loop))
    here = asyncio.get_running_loop()
    done: asyncio.Future[T] = here.create_future()

    def settle(future: concurrent.futures.Future[T]) -> None:  # on ``here``
        if done.cancelled():
            return
        if future.cancelled():  # not by this caller: the loop there ended (asyncio.run returned) during the call
            done.set_exception(TransportError(_ENDED_DURING_CALL))
        elif (error := future.exception()) is not None:
            done.set_exception(error)
        else:
            done.set_result(future.result())

    def back(future: concurrent.futures.Future[T]) -> None:  # on whichever thread finished it
        with contextlib.suppress(RuntimeError):  # this caller's loop has closed meanwhile: nobody waits
            here.call_soon_threadsafe(settle, future)

    sent: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)
    sent.add_done_callback(back)
    try:
        return await done
    except asyncio.CancelledError:
        sent.cancel()  # cancels the work there
        raise


async def run_async(coro: Coroutine[Any, Any, T], *, home: Home = ELSEWHERE) -> T:
    """Await ``coro`` on ``home``, its client's home loop: directly when that is the caller's loop (or the
    client has no session yet: it opens one here), else across threads. Other work (``ELSEWHERE``) runs on
    :func:`get_loop`."""
    here = asyncio.get_running_loop()
    home = _settled(home)
    if home is None:  # no session yet: it opens on the caller's loop (or the one use_running_loop() named)
        adopted = _adopted
        home = here if adopted is None or adopted[0].is_closed() else adopted[0]
    elif home is ELSEWHERE:
        home = get_loop()
    try:
        if home is here or home in _blocked:
            # On its home, or its home's thread waits in a blocking call for this very work (a group's
            # sync method on that thread): run it here; what reaches the session there raises (run_on).
            return await coro
        return await run_on(home, coro)
    except MCPLiteLLMError as error:
        raise plain_traceback(error)  # as in run_sync: the line an async caller's traceback ends on


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

    caller = _running_loop()
    future = asyncio.run_coroutine_threadsafe(pump(), loop)
    ready.wait()
    try:
        while True:
            loop.call_soon_threadsafe(demand.put_nowait, None)  # type: ignore[union-attr]
            if caller is not None:
                _blocked[caller] = _blocked.get(caller, 0) + 1
            try:
                kind, value = results.get()
            finally:
                if caller is not None:
                    _unblock(caller)
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
