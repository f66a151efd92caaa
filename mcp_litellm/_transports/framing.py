"""Splitting a byte stream into lines in linear time, with a bound on how long one line may grow.

The reader keeps one buffer per stream and looks for newlines only in bytes it has not looked at
yet, so a 100 MB line costs one pass over 100 MB (not a re-join and re-split per chunk). A line that
grows past ``limit`` bytes is not kept: its first bytes are, for reporting, and the rest is counted
and dropped until its newline arrives.
"""

from __future__ import annotations

from dataclasses import dataclass

HEAD_BYTES = 512
"""How many leading bytes of an oversized line are kept (enough for a JSON-RPC envelope's ``id``)."""


@dataclass(frozen=True)
class Oversized:
    """A line longer than the limit: its first bytes and its whole length."""

    head: bytes
    size: int


class LineFramer:
    """Feed bytes in, get complete lines (``bytes``, without the newline) or :class:`Oversized` out."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._buffer = bytearray()
        self._head = b""
        self._dropped = 0  # > 0 while the current line is being dropped

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
        elif len(self._buffer) + (end - start) > self.limit:
            self._head = bytes((self._buffer + data[start:start + HEAD_BYTES])[:HEAD_BYTES])
            self._dropped = len(self._buffer) + (end - start)
            self._buffer = bytearray()
        else:
            self._buffer += data[start:end]

    def _finish(self) -> bytes | Oversized:
        if self._dropped:
            frame: bytes | Oversized = Oversized(self._head, self._dropped)
            self._head, self._dropped = b"", 0
            return frame
        line = bytes(self._buffer)
        self._buffer = bytearray()
        return line

    @property
    def pending(self) -> int:
        """Bytes of the line being read so far (kept or dropped)."""
        return self._dropped or len(self._buffer)
