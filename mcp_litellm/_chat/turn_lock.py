"""One turn at a time per chat: a first-come, first-served lock that works across event loops and threads.

A chat's sync methods run its turns on the library's background loop, its async ones on the caller's loop,
so an ``asyncio.Lock`` (bound to one loop) cannot serialise them, and a ``threading.Lock`` would block a
loop while it waits. :class:`TurnLock` keeps its state under a thread lock and parks each waiter on a
future of the waiter's own loop; releasing hands the lock straight to the next waiter (woken on its loop
with ``call_soon_threadsafe``), so the waiters take their turns in the order they asked.

A sync ask or stream on a thread that is still reading a sync stream of the chat would wait for itself: it
is refused with :class:`ConfigError` instead of hanging. (An async ask in the task reading an async stream is
not refused: a stream left with ``break`` is closed a moment later by the event loop, and an ask right after
it must wait for that, not fail.)
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TypeVar

from mcp_litellm._core.errors import ConfigError

T = TypeVar("T")

_WAITS_FOR_ITSELF = ("this chat's turn is held by a stream of it that this thread is still reading, so this ask "
                     "would wait for itself: finish the stream or close it (leave its for loop with break) before "
                     "asking again")

__all__ = ["TurnLock"]


@dataclass(eq=False)
class _Waiter:
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]
    granted: bool = field(default=False)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class TurnLock:
    """A fair lock for the turns of one chat, usable from any event loop in any thread."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._reading: dict[int, int] = {}
        """Threads reading a sync stream of the chat: how many each."""
        self._waiters: deque[_Waiter] = deque()

    @property
    def locked(self) -> bool:
        """Whether a turn holds the lock."""
        return self._held

    async def acquire(self) -> None:
        """Wait (without blocking the loop) until no other turn holds the lock, then hold it."""
        loop = asyncio.get_running_loop()
        with self._mutex:
            if not self._held:
                self._held = True
                return
            waiter = _Waiter(loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter.future
        except BaseException:  # cancelled while waiting: leave the queue, or pass on a lock handed over meanwhile
            with self._mutex:
                if waiter.granted:
                    self._hand_over()
                else:
                    with suppress(ValueError):
                        self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Let the next waiting turn (if any) hold the lock."""
        with self._mutex:
            self._hand_over()

    def _hand_over(self) -> None:
        """Under the mutex: give the lock to the first waiter whose loop still runs, else free it."""
        while self._waiters:
            waiter = self._waiters.popleft()
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its loop is closed: nobody is waiting there any more
                continue
            waiter.granted = True
            return
        self._held = False

    def refuse_reading_thread(self) -> None:
        """Raise :class:`ConfigError` on a thread still reading a sync stream of the chat (its ask would wait
        for that stream, which waits for this thread)."""
        if threading.get_ident() in self._reading:
            raise ConfigError(_WAITS_FOR_ITSELF)

    def reading(self, chunks: Iterator[T]) -> Iterator[T]:
        """``chunks`` (a sync stream of the chat), with this thread marked as reading it until it ends or is
        closed."""
        self.refuse_reading_thread()
        me = threading.get_ident()
        with self._mutex:
            self._reading[me] = self._reading.get(me, 0) + 1
        try:
            yield from chunks
        finally:
            with self._mutex:
                left = self._reading.pop(me) - 1
                if left:
                    self._reading[me] = left

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """``async with lock.hold():`` the body runs as the only turn."""
        await self.acquire()
        try:
            yield
        finally:
            self.release()
