"""The clients whose session is up, in this process: ``ml.use_running_loop()`` checks none runs on another loop,
and they are stopped at interpreter exit."""

from __future__ import annotations

import asyncio
import atexit
import logging
import weakref
from typing import Protocol

from mcp_litellm._client.session.loop import adopt, adopted_loop
from mcp_litellm._core.errors import ConfigError

logger = logging.getLogger("mcp_litellm")


class LiveClient(Protocol):
    """What this module asks of a client (a :class:`~mcp_litellm.Client` is one)."""

    name: str

    def is_alive(self) -> bool: ...
    def _session_loop(self) -> asyncio.AbstractEventLoop | None: ...
    def stop(self) -> None: ...


live_clients: weakref.WeakSet[LiveClient] = weakref.WeakSet()
"""Clients whose session is up (added and dropped by the session's ``opened``/``closed`` hooks)."""


def use_running_loop() -> None:
    """Run every MCP session opened from now on on the calling coroutine's event loop, from any thread.

    Clients started from async code run on their caller's loop already (the default); this makes the
    loop the home of the sessions started from sync code too (other threads, ``start=True`` outside the
    loop), and of groups. Call it from async code, before starting clients (``asyncio.run(main())`` with
    this as the first line of ``main``). Until that loop closes, blocking methods work only from other
    threads (on the loop's own thread they raise, as they would block it); afterwards the background loop
    serves new clients again. Clients running on another loop must be stopped first (``ConfigError``).
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise ConfigError(
            "ml.use_running_loop() must be called from async code (inside the coroutine you pass to "
            "asyncio.run), so there is a running loop to use"
        ) from None
    if adopted_loop() is loop:
        return
    live = sorted(c.name for c in live_clients if c.is_alive() and c._session_loop() is not loop)
    if live:
        raise ConfigError(
            f"ml.use_running_loop() was called while clients run on another event loop: {', '.join(live)}; "
            "stop them first, or call it before starting any client"
        )
    if adopted_loop() is not None:
        raise ConfigError(
            "ml.use_running_loop() was already called from another event loop that is still open; "
            "only one loop can own the MCP sessions at a time"
        )
    adopt(loop)


@atexit.register
def _stop_all_at_exit() -> None:
    for live in list(live_clients):  # one on a loop left open but idle is stopped on it (run_sync)
        try:
            live.stop()
        except Exception:  # pragma: no cover - best effort at interpreter exit
            logger.debug("stopping %r at exit failed", live, exc_info=True)


__all__ = ["live_clients", "use_running_loop"]
