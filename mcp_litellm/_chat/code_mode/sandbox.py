"""Running the model's program in pydantic-monty: a Python interpreter written in Rust, in a worker process
of its own, with no access to the host's files, environment, subprocesses or network; the program reaches
the outside only through the host functions it is given (the tools). Nothing the model writes is ever
executed by the user's Python interpreter.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_litellm._chat.code_mode.settings import CodeMode, require_sandbox

__all__ = ["Outcome", "run_program"]

logger = logging.getLogger("mcp_litellm")

_TEARDOWN_PAUSE = 0.05
"""Seconds to wait after the sandbox pool closes (see the end of :func:`run_program`)."""
_VALUE_LIMIT = 100_000  # characters of the last expression's value kept (the result budget applies after)


@dataclass
class Outcome:
    """What one run produced: the printed text, and the last expression's value or the error."""

    printed: str = ""
    has_value: bool = False
    value_text: str = ""
    error: str | None = None


class _Printed:
    """Collects the program's output, up to a limit (the rest is counted, not kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.dropped = 0

    def __call__(self, stream: str, text: str) -> None:
        room = self.limit - self.size
        if room <= 0:
            self.dropped += len(text)
            return
        kept = text[:room]
        self.parts.append(kept)
        self.size += len(kept)
        self.dropped += len(text) - len(kept)

    def text(self) -> str:
        joined = "".join(self.parts)
        if self.dropped:
            joined += f"\n[... {self.dropped:,} more characters of output cut: print less]\n"
        return joined


def _value_text(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    if len(text) > _VALUE_LIMIT:
        text = text[:_VALUE_LIMIT] + f"\n[... {len(text) - _VALUE_LIMIT:,} more characters cut]"
    return text


def limits(settings: CodeMode) -> dict[str, Any]:
    """pydantic-monty's resource limits for ``settings``."""
    return {
        "max_feed_duration_secs": float(settings.timeout),
        "max_total_sleep_secs": float(settings.timeout),  # else asyncio.sleep() would wait unbounded
        "max_memory": settings.memory_mb * 1024 * 1024,
        # each tool call takes a few suspensions (the call, its future, name lookups)
        "max_suspensions": 1_000 + 10 * settings.max_tool_calls,
    }


async def run_program(code: str, functions: Mapping[str, object], settings: CodeMode) -> Outcome:
    """Run ``code`` in a fresh sandbox worker, with ``functions`` (coroutine functions) as its host functions.

    Every failure of the program (a syntax error, an exception, the time or memory limit) becomes
    ``Outcome.error``, text for the model; only a failure of the sandbox itself to start raises."""
    monty = require_sandbox()
    printed = _Printed(settings.max_output_chars)
    outcome = Outcome()
    try:
        async with monty.AsyncMonty(min_processes=1, max_processes=1) as pool, \
                pool.checkout(limits=limits(settings)) as session:
            value = await session.feed_run(code, external_lookup=dict(functions), print_callback=printed)
    except monty.MontySyntaxError as exc:
        outcome.error = f"Error: the program is not valid Python here:\n{exc.display('traceback')}"
    except monty.MontyRuntimeError as exc:
        outcome.error = f"Error: the program stopped:\n{exc.display('traceback')}"
    except monty.MontyError as exc:
        logger.warning("code mode: the sandbox failed: %s: %s", type(exc).__name__, exc)
        outcome.error = f"Error: the sandbox failed ({type(exc).__name__}: {exc}); the program did not finish."
    else:
        if value is not None:
            outcome.has_value = True
            outcome.value_text = _value_text(value)
    # pydantic-monty 1.4.0 finishes tearing its worker pool down just after ``__aexit__`` returns: a process
    # that exits in that moment (a script whose last act was this run) aborts in the pool's teardown (SIGABRT,
    # about one exit in ten). A short pause lets it finish; upstream, ``__aexit__`` should await it.
    await asyncio.sleep(_TEARDOWN_PAUSE)
    outcome.printed = printed.text()
    return outcome
