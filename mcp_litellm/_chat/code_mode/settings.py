"""``CodeMode``: the settings of code mode (the sandbox's limits), and turning ``code_mode=`` into them."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from mcp_litellm._core.errors import ConfigError

__all__ = ["CodeMode", "code_mode_settings", "require_sandbox"]

INSTALL_HINT = 'pip install "mcp-litellm[code]"'


@dataclass(frozen=True)
class CodeMode:
    """Code mode for a :class:`~mcp_litellm.Chat`: the model gets one tool, ``run_code``, and writes a short
    Python program over its tools, run in a sandbox (pydantic-monty, the ``code`` extra); only what the
    program prints and the value of its last expression go back to the model.

    ``Chat(model, code_mode=True)`` uses these defaults; ``Chat(model, code_mode=ml.CodeMode(timeout=10))``
    sets them.

    Args:
        timeout: seconds the program itself may compute, and (separately) seconds it may spend in
            ``asyncio.sleep``; time spent waiting for its tool calls is not counted (each tool call is bounded
            by the chat's ``tool_timeout``). Past it the program stops and the model reads a ``TimeoutError``.
        memory_mb: megabytes of memory the program may use; past it the model reads a ``MemoryError``.
        max_tool_calls: tool calls one run may make; the call past it raises inside the program
            (a ``RuntimeError`` the program can catch; every later call raises too).
        read_only_without_approval: let tools annotated ``readOnlyHint`` run inside the program without
            asking the client's approval handler (a loop of fifty reads does not ask fifty times). Other calls
            are approved as usual; the handler sees :attr:`~mcp_litellm.CodeRun` on each.
        max_output_chars: characters of printed output kept per run (the rest is cut, with a note); the
            chat's result budget then applies to what goes back.
    """

    timeout: float = 30.0
    memory_mb: int = 256
    max_tool_calls: int = 100
    read_only_without_approval: bool = False
    max_output_chars: int = 100_000

    def __post_init__(self) -> None:
        for name in ("timeout", "memory_mb", "max_tool_calls", "max_output_chars"):
            value = getattr(self, name)
            whole = name != "timeout"
            if isinstance(value, bool) or not isinstance(value, int if whole else int | float) or value <= 0:
                kind = "a whole number" if whole else "a number of seconds"
                raise ConfigError(f"CodeMode({name}=...) must be {kind} > 0, got {value!r}")
        if not isinstance(self.read_only_without_approval, bool):
            raise ConfigError("CodeMode(read_only_without_approval=...) must be True or False, "
                              f"got {self.read_only_without_approval!r}")


def require_sandbox() -> Any:
    """The ``pydantic_monty`` module, or a :class:`ConfigError` saying what to install."""
    try:
        return importlib.import_module("pydantic_monty")
    except ImportError as exc:
        raise ConfigError(f"code mode runs the model's code in the pydantic-monty sandbox, which is not installed "
                          f"({exc}): {INSTALL_HINT}") from None


def code_mode_settings(value: Any) -> CodeMode | None:
    """``code_mode=`` as settings: ``True`` the defaults, ``False``/``None`` off, or a :class:`CodeMode`.

    Raises :class:`ConfigError` for anything else, and when the sandbox is not installed."""
    if value is None or value is False:
        return None
    if value is True:
        value = CodeMode()
    if not isinstance(value, CodeMode):
        raise ConfigError(f"code_mode must be True, False or an mcp_litellm.CodeMode, got {value!r}")
    require_sandbox()
    return value
