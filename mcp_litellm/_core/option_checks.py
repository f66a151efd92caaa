"""The rules an option's value must meet, shared by the config file (``load_config``), ``Client`` and ``Chat``.

Each rule is a test and the words for what it wants (``"a positive integer"``), so the three places
refuse the same values (``True`` is not a number here, though Python's ``bool`` is an ``int``) and say so
the same way: ``"<option> must be <what>, got <value>"``.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeVar

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.redact import shown_value

T = TypeVar("T")

MIN_MESSAGE_SIZE = 1024
"""The smallest ``max_message_size`` (bytes) a client accepts."""


def is_number(value: Any) -> bool:
    """An ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_whole(value: Any) -> bool:
    """An ``int`` that is not a ``bool``."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_positive_int(value: Any) -> bool:
    """A whole number > 0 (not a ``bool``)."""
    return is_whole(value) and value > 0


def is_message_size(value: Any) -> bool:
    """A whole number of bytes >= :data:`MIN_MESSAGE_SIZE`."""
    return is_whole(value) and value >= MIN_MESSAGE_SIZE


class Rule(NamedTuple):
    """What an option's value must be: ``test(value)`` is true, described as ``what``."""

    test: Callable[[Any], bool]
    what: str


FLAG = Rule(lambda v: isinstance(v, bool), "True or False")
SECONDS = Rule(lambda v: is_number(v) and v > 0, "a positive number of seconds")
POSITIVE_INT = Rule(is_positive_int, "a positive integer")
COUNT = Rule(lambda v: is_whole(v) and v >= 0, "a whole number >= 0")
MESSAGE_SIZE = Rule(is_message_size, f"a whole number of bytes >= {MIN_MESSAGE_SIZE} (e.g. 67108864 for 64 MiB)")


def checked(option: str, value: T, rule: Rule, *, none: str | None = None) -> T:
    """``value`` when it meets ``rule``; else :class:`ConfigError` ``"<option> must be <what>, got <value>"``.
    With ``none`` (e.g. ``"for no limit"``), ``None`` is allowed too and the message says what it means."""
    if (none is not None and value is None) or rule.test(value):
        return value
    allowed = f" (or None {none})" if none is not None else ""
    raise ConfigError(f"{option} must be {rule.what}{allowed}, got {shown_value(value)}")


def closest(name: str, options: Iterable[str], *, cutoff: float = 0.75) -> str | None:
    """The option ``name`` most likely misspells (``difflib``, at least ``cutoff`` alike), or ``None``."""
    found = difflib.get_close_matches(name, list(options), n=1, cutoff=cutoff)
    return found[0] if found else None
