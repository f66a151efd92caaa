"""Text rendering for the ``mcp-litellm`` command: tool signatures, results, progress bars."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from typing import TextIO

from mcp_types import AudioContent, BlobResourceContents, EmbeddedResource, ImageContent

from mcp_litellm._core.clean_text import clean
from mcp_litellm._core.content import block_text


def first_line(text: str | None, width: int = 100) -> str:
    """The first non-empty line of ``text`` (a server's words: without control characters, so it cannot drive
    the terminal), cut to ``width`` characters."""
    for line in clean(text or "").splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


def type_name(schema: object) -> str:
    """A JSON schema's type in a few characters: ``integer``, ``string[]``, ``"a"|"b"``, ``string|null``."""
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return "|".join(json.dumps(v) for v in schema["enum"][:5]) + ("|…" if len(schema["enum"]) > 5 else "")
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return f"{type_name(schema.get('items'))}[]"
    if kind:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return "|".join(type_name(s) for s in schema[key])
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "any"


def signature(name: str, schema: dict[str, object]) -> str:
    """``name(a: integer, b?: string)`` from a JSON schema of the arguments (``?`` marks optional)."""
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    listed = schema.get("required")
    required = set(listed) if isinstance(listed, list) else set()
    params = [f"{key}{'' if key in required else '?'}: {type_name(value)}" for key, value in properties.items()]
    return clean(f"{name}({', '.join(params)})")


def describe_block(block: object) -> str:
    """A one-line text form of a content block (media are described, not dumped)."""
    text = block_text(block)
    if text is not None:
        return text
    if isinstance(block, ImageContent | AudioContent):
        kind = "image" if isinstance(block, ImageContent) else "audio"
        return f"[{kind} {block.mime_type}, {len(block.data) * 3 // 4} bytes]"
    if isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents):
        resource = block.resource
        size = len(resource.blob) * 3 // 4
        return f"[embedded {resource.mime_type or 'binary'} resource <{resource.uri}>, {size} bytes]"
    return f"[{getattr(block, 'type', type(block).__name__)} content]"


def dump_json(value: object, stream: TextIO | None = None) -> None:
    """Print ``value`` as indented JSON."""
    print(json.dumps(value, indent=2, ensure_ascii=False, default=str), file=stream or sys.stdout)


class ProgressBar:
    """Progress notifications as a one-line bar on stderr (a plain line per update when not a terminal)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._lock = threading.Lock()
        self._open = False

    def update(self, label: str, progress: float, total: float | None, message: str | None) -> None:
        """Show ``progress`` of ``total`` (unknown totals show the count) for ``label``."""
        with self._lock:
            if total:
                fraction = max(0.0, min(1.0, progress / total))
                width = max(10, min(30, shutil.get_terminal_size().columns - 50))
                filled = int(fraction * width)
                bar = f"[{'#' * filled}{'.' * (width - filled)}] {fraction * 100:3.0f}%"
            else:
                bar = f"[{progress:g}]"
            line = f"  {label} {bar}" + (f" {message}" if message else "")
            if self.tty:
                self.stream.write("\r\033[K" + line)
                self._open = True
            else:
                self.stream.write(line + "\n")
            self.stream.flush()

    def end(self) -> None:
        """Finish the bar's line (call before printing anything else)."""
        with self._lock:
            if self._open:
                self.stream.write("\n")
                self.stream.flush()
                self._open = False
