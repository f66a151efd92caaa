"""Text a server writes for the model, cleaned of characters that hide instructions from a human reviewer.

Tool, prompt and resource descriptions (and tool titles and schemas) go into the model's prompt. The
characters removed here are invisible on a screen but read by the model: zero-width characters,
bidirectional controls, Unicode tag characters (U+E0000-U+E007F, which spell ASCII invisibly), and C0/C1
control characters other than newline and tab. :func:`clean_fields` removes them and logs a warning
naming the server and the item; :func:`printable` shows them as escapes instead (for a reviewer's eyes,
e.g. ``mcp-litellm pins``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger("mcp_litellm")

__all__ = ["HIDDEN", "clean", "clean_fields", "clean_value", "printable"]

_ZERO_WIDTH = "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0"
_BIDI = "\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_VARIATION = "\ufe00-\ufe0f"  # variation selectors: invisible, and used to smuggle bytes (with the supplement below)
HIDDEN = re.compile(f"[{_ZERO_WIDTH}{_BIDI}{_CONTROLS}{_VARIATION}\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
"""One character that hides text: zero-width, bidi control, tag, variation selector, or a C0/C1 control
other than newline and tab."""


def clean(text: str) -> str:
    """``text`` without hidden characters (see :data:`HIDDEN`)."""
    return HIDDEN.sub("", text)


def clean_value(value: Any) -> tuple[Any, int]:
    """``value`` (a string, or JSON-like lists and mappings of them, keys included) cleaned, and how many
    characters were removed. Values that need no cleaning are returned as they are (not copied)."""
    if isinstance(value, str):
        cleaned = HIDDEN.sub("", value)
        return cleaned, len(value) - len(cleaned)
    if isinstance(value, Mapping):
        removed, items = 0, []
        for key, item in value.items():
            new_key, in_key = clean_value(key)
            new_item, in_item = clean_value(item)
            removed += in_key + in_item
            items.append((new_key, new_item))
        return (dict(items) if removed else value), removed
    if isinstance(value, list | tuple):
        results = [clean_value(item) for item in value]
        removed = sum(count for _, count in results)
        return ([item for item, _ in results] if removed else value), removed
    return value, 0


_warned: set[tuple[str, str, str, str]] = set()
_WARNED_LIMIT = 10_000


def clean_fields(server: str, kind: str, name: str, **fields: Any) -> dict[str, Any]:
    """``fields`` (description, title, schemas ...) of one ``kind`` of item (``"tool"``, ``"prompt"``,
    ``"resource"``) cleaned; when anything was removed, a warning names the server, the item and the fields
    (once per item and text in a process, not at every listing)."""
    cleaned: dict[str, Any] = {}
    touched: list[str] = []
    total = 0
    for field, value in fields.items():
        cleaned[field], removed = clean_value(value)
        if removed:
            touched.append(field.replace("_", " "))
            total += removed
    if not total:
        return cleaned
    key = (server, kind, name, repr(sorted(fields.items(), key=lambda item: item[0])))
    if key not in _warned:
        if len(_warned) >= _WARNED_LIMIT:
            _warned.clear()
        _warned.add(key)
        logger.warning("server %r: removed %d hidden character(s) (zero-width, bidi, tag or control) from the %s "
                       "of %s %s; they could hide instructions to the model", server, total, ", ".join(touched),
                       kind, printable(repr(name)))
    return cleaned


def printable(text: str) -> str:
    """``text`` with every hidden character shown as an escape (``\\u200b``), so a person sees it; a
    terminal's escape sequences cannot run."""
    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"

    return HIDDEN.sub(escape, text)
