"""How a :class:`~mcp_litellm.ClientPool` hands a user's group to a caller on another loop or thread.

The slot is claimed on the pool's loop and the group delivered to the caller's. A caller cancelled just as
its group is granted (``asyncio.wait_for`` running out, a web client disconnecting, Ctrl-C) never receives
it, and the pool's loop could not tell: the caller gives it back, whichever happens first there, the grant
or the giving back (both run on the pool's loop, one after the other), so no slot stays taken by nobody.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import suppress

from mcp_litellm._client.session.loop import get_loop, run_async, run_sync
from mcp_litellm._servers.pool_users import Grant, PoolUser


class Handing:
    """The part of :class:`~mcp_litellm.ClientPool` that hands groups over (see the module docs)."""

    async def _for_user(self, user_id: str, headers: Mapping[str, str] | None, wait_timeout: float | None,
                        hold: bool) -> PoolUser:
        raise NotImplementedError

    def _admit(self) -> None:
        raise NotImplementedError

    async def _take(self, user_id: str, headers: Mapping[str, str] | None, wait_timeout: float | None,
                    grant: Grant) -> PoolUser:
        """``grant``'s group, claimed on the pool's loop; a caller that gives up (cancelled) as it is granted
        gives it back, so that no slot stays taken by a caller that never got it."""
        try:
            return await run_async(self._grant(user_id, headers, wait_timeout, grant))
        except BaseException:
            self._give_back_soon(grant)
            raise

    def _take_sync(self, user_id: str, headers: Mapping[str, str] | None, wait_timeout: float | None,
                   grant: Grant) -> PoolUser:
        try:
            return run_sync(self._grant(user_id, headers, wait_timeout, grant))
        except BaseException:  # Ctrl-C as the group was granted
            self._give_back_soon(grant)
            raise

    async def _grant(self, user_id: str, headers: Mapping[str, str] | None, wait_timeout: float | None,
                     grant: Grant) -> PoolUser:
        entry = await self._for_user(user_id, headers, wait_timeout, grant.hold)
        grant.entry = entry
        if grant.given_back:  # the caller gave up while its group was being handed over
            self._give_back(grant)
            raise asyncio.CancelledError
        return entry

    def _give_back(self, grant: Grant) -> None:
        """On the pool's loop: undo ``grant``'s hand-over, once (its caller left, or never got the group)."""
        grant.given_back = True
        entry, grant.entry = grant.entry, None
        if entry is not None:
            entry.hand_back(grant.hold)
            self._admit()

    async def _give_back_now(self, grant: Grant) -> None:
        self._give_back(grant)

    def _give_back_soon(self, grant: Grant) -> None:
        """From the caller's side, without waiting: give ``grant`` back on the pool's loop."""
        loop = get_loop()
        try:
            here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            here = None
        if here is loop:
            self._give_back(grant)
            return
        with suppress(RuntimeError):  # the pool's loop has closed: nothing is held there any more
            loop.call_soon_threadsafe(self._give_back, grant)

