"""Splitting a byte stream into lines (stdio) or server-sent events (legacy SSE) in linear time, with a
bound on how large one line or event may grow.

The reader keeps one buffer per stream and looks for newlines only in bytes it has not looked at
yet, so a 100 MB line costs one pass over 100 MB (not a re-join and re-split per chunk). A line that
grows past ``limit`` bytes is not kept: its first bytes are, for reporting, and the rest is counted
and dropped until its newline arrives. :class:`EventFramer` does the same for the data of one event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEAD_BYTES = 512
"""How many leading bytes of an oversized line are kept (enough for a JSON-RPC envelope's ``id``)."""
TAIL_BYTES = 512
"""How many trailing bytes of an oversized line are kept (TypeScript-SDK servers write the ``id`` last)."""


@dataclass(frozen=True)
class Oversized:
    """A line (or event) longer than the limit: its first bytes, its length, and its last bytes.

    ``complete`` is False for an event reported as soon as it passed the limit: its size is then the
    size so far, and its tail is not known yet.
    """

    head: bytes
    size: int
    tail: bytes = b""
    complete: bool = True
    member_id: bytes | None = None
    """The raw JSON of the message's top-level ``"id"`` when :class:`IdScanner` found it (stdio only)."""


SCAN_TOKENS = 2_000_000
"""How many structural tokens (brackets, strings) of one oversized line :class:`IdScanner` reads at most."""
_STRUCTURE = re.compile(rb'[{}\[\]"]')
_STRING_REST = re.compile(rb'(?:[^"\\]|\\.)*"', re.S)
_STRING_BODY = re.compile(rb'(?:[^"\\]|\\.)*', re.S)
_TOP_ID = re.compile(rb'[{,]\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]')
_KEPT = 64  # a top-level string longer than this is kept as ""; "id" and its value are short


class IdScanner:
    """Finds the top-level ``"id"`` member anywhere in a JSON object fed in pieces, in bounded memory.

    It follows the nesting (strings skipped at C speed, so a huge text costs one ``re`` match), keeps only
    the last bytes written at the object's top level, and looks for ``"id": <value>`` there; an ``id``
    nested in the payload never counts. It gives up after :data:`SCAN_TOKENS` brackets and strings, so a
    hostile line of a billion brackets costs a bounded time; a message whose top level names a
    ``"method"`` (a request of the server's own) has no id of ours.
    """

    def __init__(self) -> None:
        self.found: bytes | None = None
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._partial = b""  # a top-level string being read across pieces (up to _KEPT bytes)
        self._top = b""  # the last bytes seen at the top level
        self._tokens = 0
        self._method = False

    @property
    def done(self) -> bool:
        return self.found is not None or self._method or self._tokens > SCAN_TOKENS

    def feed(self, data: bytes | bytearray, start: int = 0, end: int | None = None) -> None:
        end = len(data) if end is None else end
        pos = start
        while pos < end and not self.done:
            if self._in_string:
                pos = self._string(data, pos, end)
                continue
            match = _STRUCTURE.search(data, pos, end)
            stop = end if match is None else match.start()
            if self._depth == 1:
                self._keep(data[max(pos, stop - _KEPT):stop])
            if match is None:
                return
            self._tokens += 1
            char = data[stop]
            pos = stop + 1
            if char == 0x22:  # "
                self._in_string, self._partial = True, b""
            elif char in (0x7B, 0x5B):  # { [
                if self._depth == 1:
                    self._keep(b"[]")
                self._depth += 1
                if self._depth == 1:
                    self._top = b"{"
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._keep(b"}")

    def _string(self, data: bytes | bytearray, pos: int, end: int) -> int:
        if self._escape:
            self._escape, pos = False, pos + 1
            if pos >= end:
                return end
        match = _STRING_REST.match(data, pos, end)
        if match is None:
            body = _STRING_BODY.match(data, pos, end)
            stop = body.end() if body is not None else pos
            self._escape = stop < end  # the piece ends in a lone backslash
            if self._depth == 1 and len(self._partial) <= _KEPT:
                self._partial += bytes(data[pos:min(end, pos + _KEPT + 1)])
            return end
        self._in_string = False
        if self._depth == 1:
            self._partial += bytes(data[pos:min(match.end() - 1, pos + _KEPT + 1)])
            text = self._partial if len(self._partial) <= _KEPT else b""
            self._method = self._method or (text == b"method" and self._top.rstrip().endswith((b"{", b",")))
            self._keep(b'"' + text + b'"')
        return match.end()

    def _keep(self, piece: bytes | bytearray) -> None:
        if not piece:
            return
        self._top = (self._top + piece)[-4 * _KEPT:]
        match = _TOP_ID.search(self._top)
        if match is not None:
            self.found = match.group(1)


class LineFramer:
    """Feed bytes in, get complete lines (``bytes``, without the newline) or :class:`Oversized` out."""

    def __init__(self, limit: int, *, scan_ids: bool = False) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._head = b""
        self._tail = b""
        self._dropped = 0  # > 0 while the current line is being dropped
        self._scan_ids = scan_ids  # look for the JSON-RPC id of a line being dropped (IdScanner)
        self._scanner: IdScanner | None = None

    def feed(self, data: bytes) -> list[bytes | Oversized]:
        """The lines that ``data`` completes, in order."""
        frames: list[bytes | Oversized] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                self._append(data, start, len(data))
                return frames
            self._append(data, start, end)
            frames.append(self._finish())
            start = end + 1

    def _append(self, data: bytes, start: int, end: int) -> None:
        if end <= start:
            return
        if self._dropped:
            self._dropped += end - start
            self._tail = (self._tail + data[max(start, end - TAIL_BYTES):end])[-TAIL_BYTES:]
            if self._scanner is not None:
                self._scanner.feed(data, start, end)
        elif len(self._buffer) + (end - start) > self.limit:
            self._head = bytes((self._buffer + data[start:start + HEAD_BYTES])[:HEAD_BYTES])
            self._tail = bytes((self._buffer[-TAIL_BYTES:] + data[max(start, end - TAIL_BYTES):end])[-TAIL_BYTES:])
            self._dropped = len(self._buffer) + (end - start)
            if self._scan_ids:
                self._scanner = IdScanner()
                self._scanner.feed(self._buffer)
                self._scanner.feed(data, start, end)
            self._buffer = bytearray()
        else:
            self._buffer += data[start:end]

    def _finish(self) -> bytes | Oversized:
        if self._dropped:
            found = self._scanner.found if self._scanner is not None else None
            frame: bytes | Oversized = Oversized(self._head, self._dropped, self._tail, member_id=found)
            self._head, self._tail, self._dropped, self._scanner = b"", b"", 0, None
            return frame
        line = bytes(self._buffer)
        self._buffer = bytearray()
        return line

    @property
    def pending(self) -> int:
        """Bytes of the line being read so far (kept or dropped)."""
        return self._dropped or len(self._buffer)

    @property
    def dropping(self) -> bytes | None:
        """The first bytes of the line being read when it is already past the limit, else None."""
        return self._head if self._dropped else None


class EventFramer:
    """Server-sent events: feed bytes in, get ``(event name, data)`` out, the data as ``bytes`` or, for an
    event whose data grows past ``limit``, as :class:`Oversized` (the data's first bytes and its size).

    An oversized event is reported as soon as it passes the limit, with the size read so far and
    ``complete=False`` (so a call can fail before an endless event ends), and once more when it ends,
    with its size and last bytes; the rest of it is dropped unseen. Fields other than
    ``event`` and ``data`` (``id``, ``retry``) are ignored, and lines may end in LF or CRLF (a bare
    CR, which no MCP server sends, is not a line end here).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lines = LineFramer(limit)
        self._name = ""
        self._data: list[bytes] = []
        self._size = 0
        self._head: bytes | None = None  # set once the event's data passed the limit
        self._tail = b""
        self._pending = False

    def feed(self, data: bytes) -> list[tuple[str, bytes | Oversized]]:
        """The events that ``data`` completes (or that passed the limit with it), in order."""
        events: list[tuple[str, bytes | Oversized]] = []
        for line in self._lines.feed(data):
            if isinstance(line, Oversized):
                field, _, value = line.head.partition(b":")
                if field == b"data":
                    value = value[1:] if value.startswith(b" ") else value
                    self._add(value, line.size - (len(line.head) - len(value)), events)
                    self._tail = line.tail
                continue
            line = line[:-1] if line.endswith(b"\r") else line
            if not line:
                if self._pending:
                    events.extend(self._dispatch())
                continue
            field, _, value = line.partition(b":")
            value = value[1:] if value.startswith(b" ") else value
            if field == b"event":
                self._name, self._pending = value.decode("utf-8", "replace"), True
            elif field == b"data":
                self._add(value, len(value), events)
        head = self._lines.dropping
        if head is not None and self._head is None and head.startswith(b"data"):
            value = head.partition(b":")[2]
            self._over(value[1:] if value.startswith(b" ") else value, self._size + self._lines.pending, events)
        return events

    @property
    def dropping(self) -> int:
        """Bytes of the event being read so far when it is already past the limit, else 0."""
        return self._size + self._lines.pending if self._head is not None else 0

    def _add(self, value: bytes, size: int, events: list[tuple[str, bytes | Oversized]]) -> None:
        self._pending = True
        grown = self._size + size + (1 if self._size or self._data else 0)  # data lines join with "\n"
        if self._head is None and grown > self.limit:
            self._over(value, grown, events)
        elif self._head is None:
            self._data.append(value)
        else:
            self._tail = value[-TAIL_BYTES:]
        self._size = grown

    def _over(self, value: bytes, size: int, events: list[tuple[str, bytes | Oversized]]) -> None:
        self._head = b"\n".join([*self._data, value])[:HEAD_BYTES]
        self._data = []
        self._tail = value[-TAIL_BYTES:]
        events.append((self._name or "message", Oversized(self._head, size, complete=False)))

    def _dispatch(self) -> list[tuple[str, bytes | Oversized]]:
        name = self._name or "message"
        data = b"\n".join(self._data) if self._head is None else Oversized(self._head, self._size, self._tail)
        event: list[tuple[str, bytes | Oversized]] = [(name, data)]
        self._name, self._data, self._size, self._head, self._tail, self._pending = "", [], 0, None, b"", False
        return event
