"""Names for the shapes of public arguments that every layer shares (no I/O, no behaviour)."""

from __future__ import annotations

import enum
from collections.abc import Awaitable
from typing import Literal, TypeAlias

from mcp_types import ContentBlock


class NotGiven(enum.Enum):
    """The type of :data:`NOT_GIVEN`: an argument left out, as opposed to one given as ``None``."""

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> Literal[False]:
        return False


NOT_GIVEN = NotGiven.NOT_GIVEN
"""Default of options where ``None`` means something of its own (e.g. ``roots=None``: no roots)."""

def given(**values: object) -> dict[str, object]:
    """The keyword arguments that were given (not :data:`NOT_GIVEN`)."""
    return {key: value for key, value in values.items() if value is not NOT_GIVEN}


BuiltinTransport: TypeAlias = Literal[
    "stdio", "streamable", "streamable_http", "streamable-http", "http", "sse", "memory"
]
"""The transport names mcp_litellm ships with."""

TransportName: TypeAlias = BuiltinTransport | str
"""A built-in transport name, or one added with :func:`mcp_litellm.register_transport`."""

HookResult: TypeAlias = "Awaitable[None] | None"
"""What a hook returns: nothing (a plain function) or an awaitable (an ``async def``)."""

__all__ = ["NOT_GIVEN", "BuiltinTransport", "ContentBlock", "HookResult", "NotGiven", "TransportName", "given"]
