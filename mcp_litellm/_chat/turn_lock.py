"""One turn at a time per chat: a first-come, first-served lock that works across event loops and threads.

A chat's sync methods run its turns on the library's background loop, its async ones on the caller's loop,
so an ``asyncio.Lock`` (bound to one loop) cannot serialise them, and a ``threading.Lock`` would block a
loop while it waits. :class:`TurnLock` keeps its state under a thread lock and parks each waiter on a
future of the waiter's own loop; releasing hands the lock straight to the next waiter (woken on its loop
with ``call_soon_threadsafe``), so the waiters take their turns in the order they asked.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field

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

    @asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """``async with lock.hold():`` the body runs as the only turn."""
        await self.acquire()
        try:
            yield
        finally:
            self.release()
