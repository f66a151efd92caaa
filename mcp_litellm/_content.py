"""MCP content blocks to LiteLLM message content (pure functions, no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)


def block_text(block: Any) -> str | None:
    """The text form of one content block, or ``None`` when it has none (images, audio, blobs)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ResourceLink):
        label = block.title or block.name
        return f"[resource link: {label} <{block.uri}>" + (f" ({block.mime_type})" if block.mime_type else "") + "]"
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, TextResourceContents):
            return resource.text
        return None
    return None


def join_text(blocks: Iterable[Any]) -> str:
    """All text of ``blocks`` joined by newlines."""
    return "\n".join(t for t in (block_text(b) for b in blocks) if t is not None)


def media_parts(blocks: Sequence[Any]) -> list[dict[str, Any]]:
    """Images (and image blobs) as LiteLLM ``image_url`` parts; audio as ``input_audio`` parts."""
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, ImageContent):
            parts.append({"type": "image_url", "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"}})
        elif isinstance(block, AudioContent):
            fmt = block.mime_type.split("/")[-1].replace("mpeg", "mp3").replace("x-wav", "wav")
            parts.append({"type": "input_audio", "input_audio": {"data": block.data, "format": fmt}})
        elif isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents):
            mime = block.resource.mime_type or "application/octet-stream"
            if mime.startswith("image/"):
                parts.append({"type": "image_url", "image_url": {"url": f"data:{mime};base64,{block.resource.blob}"}})
    return parts
