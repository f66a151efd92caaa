"""Which code-mode run (if any) a tool call comes from: a context variable set by the chat's ``run_code``
while the model's program runs, read by approval handlers and hooks (``CodeRun.current()``)."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

__all__ = ["CodeRun"]

_current: contextvars.ContextVar[CodeRun | None] = contextvars.ContextVar("mcp_litellm_code_run", default=None)


@dataclass(frozen=True)
class CodeRun:
    """One run of the model's program in code mode (a ``run_code`` call); tool calls made from the program
    carry it, so an approval handler or a hook can tell them from direct calls.

    Attributes:
        id: this run's id (unique per run).
        tool_call_id: the id of the model's ``run_code`` call.
        code: the program the model wrote.
        read_only_without_approval: whether tools annotated ``readOnlyHint`` run without asking the approval
            handler (:attr:`CodeMode.read_only_without_approval`).
    """

    id: str
    tool_call_id: str
    code: str
    read_only_without_approval: bool = False

    @staticmethod
    def current() -> CodeRun | None:
        """The run the current tool call comes from, or ``None`` for a call the model made directly."""
        return _current.get()

    def enter(self) -> contextvars.Token[CodeRun | None]:
        """Mark the calls made from here on (in this context) as made from this run."""
        return _current.set(self)

    @staticmethod
    def leave(token: contextvars.Token[CodeRun | None]) -> None:
        """Undo :meth:`enter`."""
        _current.reset(token)
