r"""Text a server writes for the model, cleaned of characters that hide instructions from a human reviewer.

Tool, prompt and resource descriptions (and tool titles and schemas) go into the model's prompt. The
characters removed here are invisible on a screen but read by the model: zero-width characters,
bidirectional controls, Unicode tag characters (U+E0000-U+E007F, which spell ASCII invisibly), and C0/C1
control characters other than newline and tab. :func:`clean_fields` removes them and logs a warning
naming the server and the item; :func:`printable` shows them as escapes instead (for a reviewer's eyes,
e.g. ``mcp-litellm pins``). An emoji's own presentation selector stays (``⚠️`` is U+26A0 U+FE0F): one
VS15/VS16 right after a symbol (Unicode category ``So``, or one of the few other characters with an
emoji form) or in a keycap (``1️⃣``), and one zero-width joiner between two such symbols (``👩‍💻``); a run of
selectors, a selector after a letter or digit, and every other hidden character go.

Tool results reach the model through :func:`clean_result`: the same, after terminal escape sequences
(``\x1b[31m``, as in Playwright's errors) are removed whole and ``\r\n`` / a lone ``\r`` become ``\n``.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger("mcp_litellm")

__all__ = ["HIDDEN", "clean", "clean_fields", "clean_result", "clean_value", "printable"]

_ZERO_WIDTH = "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2060-\u2064\u3164\ufeff\uffa0"
_BIDI = "\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
_VARIATION = "\ufe00-\ufe0f"  # variation selectors: invisible, and used to smuggle bytes (with the supplement below)
HIDDEN = re.compile(f"[{_ZERO_WIDTH}{_BIDI}{_CONTROLS}{_VARIATION}\U000e0000-\U000e007f\U000e0100-\U000e01ef]")
"""One character that hides text: zero-width, bidi control, tag, variation selector, or a C0/C1 control
other than newline and tab."""


_SELECTORS = "\ufe00\ufe01\ufe02\ufe03\ufe04\ufe05\ufe06\ufe07\ufe08\ufe09\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f"
_EMOJI_NOT_SO = frozenset("\u203c\u2049\u2122\u2139\u2194\u2195\u2196\u2197\u2198\u2199\u21a9\u21aa"
                          "\u2934\u2935\u24c2\u3030\u303d#*0123456789")
"""Characters with an emoji form outside category ``So`` (digits, ``#`` and ``*`` only in a keycap)."""
_KEYCAP = "\u20e3"
_ZWJ = "\u200d"


def _is_selector(char: str) -> bool:
    return (len(char) == 1 and char in _SELECTORS) or "\U000e0100" <= char <= "\U000e01ef"


def _emoji_base(char: str) -> bool:
    """Whether ``char`` can take an emoji presentation selector (a symbol, not a letter or a digit)."""
    return char not in "#*0123456789" and (char in _EMOJI_NOT_SO or unicodedata.category(char) == "So")


def _kept(text: str, at: int) -> bool:
    r"""Whether the hidden character at ``text[at]`` is part of an emoji: one VS15/VS16 after a symbol or
    in a keycap (``1\ufe0f\u20e3``), or one zero-width joiner between two symbols (``👩\u200d💻``)."""
    char = text[at]
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if char in "\ufe0e\ufe0f":
        if not before or _is_selector(after) or _is_selector(before):
            return False
        return _emoji_base(before) or (before in "#*0123456789" and after == _KEYCAP)
    if char == _ZWJ and before and after:
        base = text[at - 2] if before == "\ufe0f" and at >= 2 else before
        skin = "\U0001f3fb" <= before <= "\U0001f3ff"
        return (_emoji_base(base) or skin) and _emoji_base(after)
    return False


def _drop(match: re.Match[str]) -> str:
    return match.group() if _kept(match.string, match.start()) else ""


def clean(text: str) -> str:
    """``text`` without hidden characters (see :data:`HIDDEN`; an emoji's own selector or joiner stays)."""
    return HIDDEN.sub(_drop, text)


_TERMINAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])"
                              r"|\x9b[0-?]*[ -/]*[@-~]")
r"""A terminal escape sequence: CSI (``\x1b[31m``, colours and cursor moves), OSC (``\x1b]8;;url\x07``,
titles and links) or a two-character one."""


def clean_result(text: str) -> str:
    r"""A tool result's text as the model gets it: without terminal escape sequences (removed whole, not
    leaving ``[31m`` behind), ``\r\n`` and a lone ``\r`` as ``\n``, and without hidden characters
    (:func:`clean`); newlines and tabs stay."""
    if HIDDEN.search(text) is None:  # the common case: nothing to do
        return text
    text = _TERMINAL_ESCAPE.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return clean(text)


def clean_value(value: Any) -> tuple[Any, int]:
    """``value`` (a string, or JSON-like lists and mappings of them, keys included) cleaned, and how many
    characters were removed. Values that need no cleaning are returned as they are (not copied)."""
    if isinstance(value, str):
        cleaned = clean(value)
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
        if _kept(match.string, match.start()):
            return match.group()
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"

    return HIDDEN.sub(escape, text)
