"""Which code-mode run (if any) a tool call comes from: :class:`CodeRun`, carried by the call's
``CallContext`` (``ctx.code_run``) down to approval handlers, which receive it as an argument.

:meth:`CodeRun.current` is deprecated. Until it goes, it still answers inside the user code a call runs
(an approval handler, a progress handler, a hook): :meth:`CodeRun.serving` sets the one context variable
kept for it around that code only, nowhere else.
"""

from __future__ import annotations

import contextvars
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["CodeRun"]

_serving: contextvars.ContextVar[CodeRun | None] = contextvars.ContextVar("mcp_litellm_code_run", default=None)
"""Only for the deprecated :meth:`CodeRun.current`: set around a call of user code, never elsewhere."""


@dataclass(frozen=True)
class CodeRun:
    """One run of the model's program in code mode (a ``run_code`` call); tool calls made from the program
    carry it (``context.code_run``), so an approval handler or a hook can tell them from direct calls.

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
        """Deprecated: use ``context.code_run`` (the call's context, an argument of approval handlers and
        hooks). The run the tool call being handled comes from, inside an approval handler, a progress
        handler or a hook; ``None`` for a call the model made directly (and outside such code)."""
        warnings.warn("CodeRun.current() is deprecated: use context.code_run (the call's CallContext, given to "
                      "approval handlers and hooks)", DeprecationWarning, stacklevel=2)
        return _serving.get()

    @staticmethod
    @contextmanager
    def serving(run: CodeRun | None) -> Iterator[None]:
        """While the user code of a call from ``run`` runs: what the deprecated :meth:`current` answers."""
        token = _serving.set(run)
        try:
            yield
        finally:
            _serving.reset(token)
