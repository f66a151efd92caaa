"""Deferred decisions, completed from anywhere (a web request handler, another thread, a job).

A handler that returns ``defer()`` parks the request here under its id; the request waits on the
background loop until someone calls ``ElicitationRegistry.complete(id, response=...)`` /
``.cancel(id)`` or ``HumanInTheLoopRegistry.approve(id)`` / ``.deny(id, reason=...)``, or until
its timeout resolves it (elicitation: cancel; approval: deny).
"""

from __future__ import annotations

import asyncio
import builtins
import threading
from collections.abc import Mapping
from typing import ClassVar

from mcp_litellm._client.primitives.handler_types import Decision
from mcp_litellm._core.errors import ConfigError

__all__ = ["ElicitationRegistry", "HumanInTheLoopRegistry"]


class _Registry:
    """Pending futures by id; resolving is thread-safe and idempotent."""

    _pending: ClassVar[dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Future[Decision]]]]
    _lock: ClassVar[threading.Lock]
    _on_timeout: ClassVar[Decision]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls._pending = {}
        cls._lock = threading.Lock()

    @classmethod
    def pending(cls) -> list[str]:
        """The ids waiting for a decision."""
        with cls._lock:
            return list(cls._pending)

    @classmethod
    def _resolve(cls, request_id: str, decision: Decision) -> bool:
        with cls._lock:
            entry = cls._pending.get(str(request_id))
        if entry is None:
            return False
        loop, future = entry

        def settle() -> None:
            if not future.done():
                future.set_result(decision)

        try:
            loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop is closed: nothing is waiting any more
            return False
        return True

    @classmethod
    async def wait(cls, request_id: str, timeout: float) -> tuple[Decision, bool]:
        """Park ``request_id`` until resolved or ``timeout``; returns (decision, timed_out)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Decision] = loop.create_future()
        with cls._lock:
            if request_id in cls._pending:
                raise ConfigError(f"a decision with id {request_id!r} is already pending")
            cls._pending[request_id] = (loop, future)
        try:
            return await asyncio.wait_for(future, timeout), False
        except (builtins.TimeoutError, asyncio.TimeoutError):  # two classes on Python 3.10, one on 3.11+
            return cls._on_timeout, True
        finally:
            with cls._lock:
                cls._pending.pop(request_id, None)


class ElicitationRegistry(_Registry):
    """Complete deferred elicitations by id (``elicitation.id`` in the handler)."""

    _on_timeout = Decision("cancel", reason="timed out")

    @classmethod
    def complete(cls, elicitation_id: str, response: Mapping[str, object] | None = None) -> bool:
        """Accept with ``response`` (validated against the requested schema before it is sent).

        Returns True when a pending elicitation took it, False when none is waiting under that id
        (unknown, already completed, or timed out).
        """
        return cls._resolve(elicitation_id, Decision("accept", value=dict(response) if response is not None else None))

    @classmethod
    def decline(cls, elicitation_id: str, reason: str | None = None) -> bool:
        """Decline the pending elicitation; see :meth:`complete` for the return value."""
        return cls._resolve(elicitation_id, Decision("decline", reason=reason))

    @classmethod
    def cancel(cls, elicitation_id: str, reason: str | None = None) -> bool:
        """Cancel the pending elicitation; see :meth:`complete` for the return value."""
        return cls._resolve(elicitation_id, Decision("cancel", reason=reason))


class HumanInTheLoopRegistry(_Registry):
    """Approve or deny deferred tool calls by id (``approval_id`` in the handler)."""

    _on_timeout = Decision("deny", reason="no decision was made in time")

    @classmethod
    def approve(cls, approval_id: str) -> bool:
        """Let the tool call run. True when a pending approval took it, False when none is waiting."""
        return cls._resolve(approval_id, Decision("approve"))

    @classmethod
    def deny(cls, approval_id: str, reason: str = "denied by the user") -> bool:
        """Deny the tool call with ``reason``; see :meth:`approve` for the return value."""
        return cls._resolve(approval_id, Decision("deny", reason=reason))
