"""What every handler class shares: options, guards, hooks, decisions, and running user code safely.

User code may be sync or async, and is called the one way the package calls user code
(``_core.user_code.call_user_code``): async code runs on the background loop; sync code runs on the
bounded worker pool, so a slow or blocking handler never stalls other sessions, and a sync handler may
call the client's blocking methods.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from mcp_litellm._client.primitives.handler_types import Decision
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.option_checks import positive_seconds
from mcp_litellm._core.user_code import call_user_code

logger = logging.getLogger("mcp_litellm")

__all__ = [
    "Decision",
    "Handler",
    "RateLimiter",
    "accept",
    "approve",
    "cancel",
    "decline",
    "defer",
    "deny",
    "guard",
    "reject",
]


def accept(value: Any = None) -> Decision:
    """Accept: a sampling response, or elicitation content (a dict; nothing for URL mode)."""
    return Decision("accept", value=value)


def reject(reason: str = "rejected by the client") -> Decision:
    """Reject a sampling request; the server gets an error carrying ``reason``."""
    return Decision("reject", reason=reason)


def decline(reason: str | None = None) -> Decision:
    """Decline an elicitation (the user said no)."""
    return Decision("decline", reason=reason)


def cancel(reason: str | None = None) -> Decision:
    """Cancel an elicitation (the user dismissed it without choosing)."""
    return Decision("cancel", reason=reason)


def approve() -> Decision:
    """Approve a tool call."""
    return Decision("approve")


def deny(reason: str = "denied by the user") -> Decision:
    """Deny a tool call; the model gets "Tool call was denied: <reason>"."""
    return Decision("deny", reason=reason)


def defer(timeout: float | None = None) -> Decision:
    """Decide later, from anywhere, through the registry (``ElicitationRegistry`` /
    ``HumanInTheLoopRegistry``); after ``timeout`` seconds an elicitation is cancelled and an
    approval denied."""
    positive_seconds(timeout, "defer timeout", none="for the handler's default", allow_inf=True)
    return Decision("defer", timeout=timeout)


def guard(method: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a handler method as a guard: it runs before ``execute``; ``True``/``None`` passes,
    ``False`` or a string (the reason) stops the request."""
    method.__mcp_litellm_guard__ = True  # type: ignore[attr-defined]
    return method


class Handler:
    """Base of the handler classes. Subclasses implement ``execute`` (sync or async).

    Class attributes:
        default_options: option defaults, merged along the class hierarchy and overridden by the
            keyword arguments given at registration (``client.on_sampling(MyHandler, model="x")``).

    Instance attributes: ``options`` (the merged options) and ``client_name`` (the server's name
    in this client). Guards are methods marked with :func:`guard`; ``before_execute()`` and
    ``after_execute(result)`` are hooks (sync or async) around ``execute``.
    """

    default_options: ClassVar[Mapping[str, object]] = {}
    kind: ClassVar[str] = ""
    """What the handler answers: ``"sampling"``, ``"elicitation"`` or ``"human_in_the_loop"``."""
    _guard_names: ClassVar[tuple[str, ...]] = ()
    _stop_kind: ClassVar[str] = "reject"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if getattr(value, "__mcp_litellm_guard__", False) and name not in names:
                    names.append(name)
        cls._guard_names = tuple(names)

    def __init__(self, *, client_name: str, options: Mapping[str, object] | None = None) -> None:
        merged: dict[str, Any] = {}
        for klass in reversed(type(self).__mro__):
            merged.update(vars(klass).get("default_options", {}))
        merged.update(options or {})
        self.options: dict[str, Any] = merged
        self.client_name = client_name

    @classmethod
    def all_options(cls) -> dict[str, Any]:
        """The class's option defaults (merged along its hierarchy)."""
        merged: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            merged.update(vars(klass).get("default_options", {}))
        return merged

    def execute(self) -> Any:
        """Decide; override in subclasses."""
        raise NotImplementedError(f"{type(self).__name__} must implement execute()")

    def before_execute(self) -> Any:
        """Hook run after the guards passed and before ``execute``."""

    def after_execute(self, result: Any) -> Any:
        """Hook run with what ``execute`` returned."""

    async def run(self) -> Any:
        """Guards, ``before_execute``, ``execute``, ``after_execute``; returns what ``execute`` returned
        (or the stop decision of the first failing guard)."""
        for name in self._guard_names:
            verdict = await call_user_code(getattr(self, name))
            if verdict is True or verdict is None:
                continue
            reason = verdict if isinstance(verdict, str) and verdict else f"guard {name} failed"
            return Decision(self._stop_kind, reason=reason)
        if type(self).before_execute is not Handler.before_execute:
            await call_user_code(self.before_execute)
        result = await call_user_code(self.execute)
        if type(self).after_execute is not Handler.after_execute:
            await call_user_code(self.after_execute, result)
        return result


def is_handler_class(handler: Any, base: type[Handler]) -> bool:
    """True for a subclass of ``base``; a ConfigError for a handler class of another kind."""
    if isinstance(handler, type) and issubclass(handler, Handler):
        if not issubclass(handler, base):
            raise ConfigError(f"{handler.__name__} is not a {base.__name__}")
        return True
    return False


class RateLimiter:
    """At most ``per_minute`` events in any sliding 60-second window (thread-safe)."""

    def __init__(self, per_minute: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_minute = per_minute
        self._clock = clock
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def allow(self) -> bool:
        """Record an event and return True, or return False when the window is full."""
        now = self._clock()
        with self._lock:
            while self._times and now - self._times[0] >= 60.0:
                self._times.popleft()
            if len(self._times) >= self.per_minute:
                return False
            self._times.append(now)
            return True
