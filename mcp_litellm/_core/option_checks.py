"""The rules an option's value must meet, shared by the config file (``load_config``), ``Client`` and ``Chat``.

Each rule is a test and the words for what it wants (``"a positive integer"``), so the three places
refuse the same values (``True`` is not a number here, though Python's ``bool`` is an ``int``) and say so
the same way: ``"<option> must be <what>, got <value>"``.

**A number of seconds** (every timeout of the package: :func:`positive_seconds`) is one rule:

- an ``int`` or ``float`` above 0 (0 only where ``zero=`` says what 0 means, e.g. "fail at once");
- ``True``/``False`` are never seconds, and NaN never is;
- infinity means "no limit" and is accepted only where the option has no other way to say so
  (``allow_inf=True``: ``request_timeout``, a call's ``timeout=``, ``Chat(tool_timeout=)``, a transport's
  ``timeout``/``sse_read_timeout``, ``defer(timeout=)``, the elicitation ``timeout``); where ``None``
  already means no limit (``max_total_timeout``, a pool's ``idle_timeout``) or the wait must end (a pool's
  ``wait_timeout``/``drain_timeout``), infinity is refused;
- ``None`` only where ``none=`` says what it means.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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


def _shown_number(value: object) -> str:
    """A wrong value for a number's error: numbers, booleans and ``None`` as they are, anything else by its
    type only (a string may hold a token)."""
    return repr(value) if value is None or isinstance(value, bool | int | float) else type(value).__name__


def seconds_problem(value: object, *, none: str | None = None, zero: str | None = None,
                    allow_inf: bool = False) -> str | None:
    """What is wrong with ``value`` as a number of seconds (the rule in the module's docstring), as the end of
    a sentence (``"must be a positive number of seconds, got True"``); ``None`` when it is right.

    ``none``: what ``None`` means where it is allowed (``"for no cap"``); ``zero``: what 0 means where it is
    allowed (``"fail at once"``); ``allow_inf``: infinity is accepted (it means no limit)."""
    if value is None and none is not None:
        return None
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if number is not None and not math.isnan(number) and (allow_inf or math.isfinite(number)) and (
            number > 0 or (zero is not None and number == 0)):
        return None
    meanings = ([f"0 to {zero}"] if zero is not None else []) + ([f"None {none}"] if none is not None else [])
    what = "a number of seconds, 0 or more" if zero is not None else "a positive number of seconds"
    also = f" ({'; '.join(meanings)})" if zero is not None else f" (or None {none})" if none is not None else ""
    refused = " (None is not accepted here)" if value is None else ""
    if isinstance(value, float) and math.isnan(value):
        refused = " (nan is not a number of seconds)" if allow_inf else " (nan and infinity are not accepted)"
    elif isinstance(value, float) and math.isinf(value) and value > 0:
        refused = " (nan and infinity are not accepted" + ("; None means no limit)" if none is not None else ")")
    return f"must be {what}{also}, got {_shown_number(value)}{refused}"


def positive_seconds(value: object, what: str, *, none: str | None = None, zero: str | None = None,
                     allow_inf: bool = False) -> float | None:
    """``value`` as a ``float`` of seconds (``None`` stays ``None`` where ``none`` allows it), or
    :class:`ConfigError` ``"<what> must be a positive number of seconds ..., got <value>"`` (see
    :func:`seconds_problem` for the rule and the keywords)."""
    problem = seconds_problem(value, none=none, zero=zero, allow_inf=allow_inf)
    if problem is not None:
        raise ConfigError(f"{what} {problem}")
    return float(value) if isinstance(value, int | float) else None


def shown_kind(value: object) -> str:
    """A wrong value for a config file's error: numbers and booleans as they are, anything else by its type
    only (a string or a list may hold a token); a list names its first item that is not a string."""
    if isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        bad = next((i for i, item in enumerate(value) if not isinstance(item, str)), None)
        if bad is not None:
            hint = " (quote it to make it a string)" if isinstance(value[bad], bool | int | float) else ""
            return f"a list whose item {bad} is {shown_kind(value[bad])}{hint}"
    return type(value).__name__


@dataclass(frozen=True)
class Door:
    """Where settings come in (a config file, or Python code), and how its errors read.

    ``error(key, problem)`` makes the :class:`ConfigError` (``problem`` is the end of a sentence: "must be
    a string, got int"). A config file (``file=True``) speaks JSON (``true or false``) and shows a wrong value
    by its type only; Python code speaks Python (``True or False``) and shows the value, masked."""

    error: Callable[[str | None, str], ConfigError]
    file: bool = False

    @property
    def flag(self) -> str:
        return "true or false" if self.file else "True or False"

    def shown(self, value: object) -> str:
        return shown_kind(value) if self.file else shown_value(value)


def option_door(where: str = "") -> Door:
    """Python code's door for keyword options: ``"<where><option> <problem>"``."""
    return Door(lambda key, problem: ConfigError(f"{where}{key} {problem}"))
