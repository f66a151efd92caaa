"""Reading one JSON-RPC message off the wire, shared by the transports we own (stdio, legacy SSE), and the
bound on how large one message may be (the client option ``max_message_size``, on every transport).

A message that cannot be read is never allowed to end the session: when its request id can be found
(at its start or end, as servers write it, or for an oversized stdio line anywhere at its top level),
that call fails at once with a clear error; otherwise the message is skipped with a warning.
"""

from __future__ import annotations

import json
import logging
import re
from contextlib import suppress

import mcp_types as types
from mcp.shared.message import SessionMessage

from mcp_litellm._core.errors import REFUSED_BY_CLIENT
from mcp_litellm._core.sdk_compat import RECURSION_LIMIT

DEFAULT_MAX_MESSAGE_SIZE = 256 * 1024 * 1024
"""Bytes one message from a server may take (the client option ``max_message_size``)."""

_ID_IN_HEAD = re.compile(rb'"(id|result|error)"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")?')
_ID_AT_END = re.compile(rb'[,{]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$')


def too_big(limit: int, size: int | None = None) -> str:
    """What the call that got an answer over ``limit`` bytes fails with (``size``: the whole, if known)."""
    what = f"was {size} bytes, more than" if size is not None else "is more than"
    return (f"the server's answer {what} max_message_size ({limit} bytes); ask for less, or raise the limit "
            "with max_message_size=<bytes> on the client (ml.client(..., max_message_size=...))")


def error_for(request_id: int | str, message: str) -> SessionMessage:
    """A JSON-RPC error answer to ``request_id``: how the transport fails one call and keeps the session."""
    error = types.JSONRPCError(jsonrpc="2.0", id=request_id,
                               error=types.ErrorData(code=types.INTERNAL_ERROR, message=message,
                                                     data=dict(REFUSED_BY_CLIENT)))
    return SessionMessage(error)


def fail_oversized(logger: logging.Logger, label: str, limit: int, size: int, request_id: int | str | None, *,
                   partial: bool = False) -> SessionMessage | None:
    """Log a message over ``limit`` that was dropped, and the error answer that fails its call (``None`` when
    its request id was not found: nothing to fail). ``partial``: ``size`` is how much was read so far."""
    what = (f"server {label!r} sent a message of {size}{'+' if partial else ''} bytes, more than max_message_size "
            f"({limit} bytes)")
    if request_id is None:
        logger.error("%s; it was dropped (no request id found in it)", what)
        return None
    logger.warning("%s; it was dropped and request %r fails", what, request_id)
    return error_for(request_id, too_big(limit, None if partial else size))


def leading_id(head: bytes) -> int | str | None:
    """The top-level ``id`` of a JSON-RPC answer from its first bytes, if it comes before the payload."""
    for match in _ID_IN_HEAD.finditer(head):
        if match.group(1) != b"id":
            return None  # "result"/"error" came first: an "id" after it may be nested in the payload
        raw = match.group(2)
        if raw is None:
            return None
        with suppress(ValueError):
            value = json.loads(raw)
            return value if isinstance(value, int | str) and not isinstance(value, bool) else None
        return None
    return None


def trailing_id(tail: bytes) -> int | str | None:
    """The top-level ``id`` of a JSON-RPC message from its last bytes, if it is its last member (as
    TypeScript-SDK servers write it: ``{"result": ..., "jsonrpc": "2.0", "id": 7}``).

    The closing brace after it ends the whole message, so an ``id`` found there is a top-level one.
    """
    match = _ID_AT_END.search(tail)
    if match is None:
        return None
    with suppress(ValueError):
        value = json.loads(match.group(1))
        return value if isinstance(value, int | str) and not isinstance(value, bool) else None
    return None


def oversized_id(head: bytes, tail: bytes, member_id: bytes | None = None) -> int | str | None:
    """The request id of an answer too large to keep, from its first or its last bytes, or else the
    top-level ``id`` a scan of the whole message found (``member_id``, raw JSON)."""
    found = leading_id(head)
    if found is not None:
        return found
    if b'"method"' in head:  # a request from the server ends with an id too, of the server's own
        return None
    found = trailing_id(tail)
    if found is None and member_id is not None:
        with suppress(ValueError):
            value = json.loads(member_id)
            found = value if isinstance(value, int | str) and not isinstance(value, bool) else None
    return found


class Unreadable:
    """A message that could not be read: why (for the log), and the error for its call, if it has one."""

    def __init__(self, reason: str, request_id: int | str | None = None, error: str | None = None) -> None:
        self.reason = reason
        self.request_id = request_id
        self.answer = error_for(request_id, error) if request_id is not None and error is not None else None


def read_message(text: str) -> SessionMessage | Unreadable:
    """Parse one JSON-RPC message; an answer that fails to parse becomes an error for its call when possible."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValueError as exc:
        return _unreadable(text, exc)


def _unreadable(text: str, exc: ValueError) -> Unreadable:
    if RECURSION_LIMIT in first_error(exc):
        request_id = leading_id(text[:512].encode("utf-8", "replace"))
        return Unreadable("nested too deeply to parse", request_id,
                          "the server's answer is nested too deeply to parse (JSON nested past the parser's "
                          "limit of about 200 levels); the server has a bug, report it to its authors")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return Unreadable("not JSON")
    request_id = data.get("id") if isinstance(data, dict) else None
    answer = isinstance(data, dict) and "method" not in data and ("result" in data or "error" in data)
    if not answer or isinstance(request_id, bool) or not isinstance(request_id, int | str):
        errors = getattr(exc, "errors", None)
        count = len(errors()) if callable(errors) else 0
        return Unreadable(f"not a JSON-RPC message ({count} validation errors)")
    return Unreadable("a malformed JSON-RPC response", request_id,
                      f"the server's answer was malformed (not a valid JSON-RPC response: {first_error(exc)}); "
                      "the server has a bug, report it to its authors")


def first_error(exc: ValueError) -> str:
    """The first problem pydantic found (where and what), without the input it quotes."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with suppress(Exception):
            first = errors(include_input=False)[0]
            where = ".".join(str(part) for part in first.get("loc", ()))
            return f"{where}: {first.get('msg')}" if where else str(first.get("msg"))
    return type(exc).__name__
