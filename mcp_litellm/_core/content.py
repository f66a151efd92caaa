"""MCP content blocks to LiteLLM message content (pure functions, no I/O).

Text-like blocks (text, resource links, embedded text resources) become text; images become
``image_url`` parts with a ``data:`` URL; audio becomes ``input_audio`` parts; binary data that no
model can read (a zip in an embedded resource) becomes a one-line description, so nothing is
silently dropped. A blob whose mime type is textual (``text/*``, JSON, XML...) is decoded and shown as text.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Sequence

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

_AUDIO_FORMATS = {"mpeg": "mp3", "mp3": "mp3", "x-wav": "wav", "wav": "wav", "wave": "wav", "ogg": "ogg",
                  "flac": "flac", "webm": "webm", "mp4": "mp4", "aac": "aac"}


def data_url(mime_type: str, data_b64: str) -> str:
    """A ``data:`` URL for base64 data."""
    return f"data:{mime_type};base64,{data_b64}"


def blob_size(data_b64: str) -> int:
    """Decoded size of base64 data (0 when it is not valid base64)."""
    try:
        return len(base64.b64decode(data_b64, validate=False))
    except (binascii.Error, ValueError):
        return 0


def image_part(mime_type: str, data_b64: str) -> dict[str, object]:
    """A LiteLLM ``image_url`` content part."""
    return {"type": "image_url", "image_url": {"url": data_url(mime_type, data_b64)}}


def audio_part(mime_type: str, data_b64: str) -> dict[str, object]:
    """A LiteLLM ``input_audio`` content part (format from the mime type, e.g. ``audio/mpeg`` -> ``mp3``)."""
    subtype = mime_type.split("/")[-1].split(";")[0].strip().lower()
    return {"type": "input_audio", "input_audio": {"data": data_b64, "format": _AUDIO_FORMATS.get(subtype, subtype)}}


MODEL_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"})
"""The image types every provider LiteLLM reaches takes (OpenAI, Anthropic, Gemini, Bedrock)."""


def is_model_image(mime_type: str | None) -> bool:
    """True for an image type models take; other images (SVG, TIFF, ...) are given as text instead."""
    return (mime_type or "").split(";", 1)[0].strip().lower() in MODEL_IMAGE_TYPES


def other_image_text(uri: str | None, mime_type: str, data_b64: str) -> str:
    """An image no model takes, as text: an SVG (or other text-based image) as its source, else a description."""
    text = blob_text(mime_type, data_b64)
    if text is not None:
        return text
    where = f" {uri}" if uri else ""
    return (f"[image{where}: {mime_type}, {blob_size(data_b64)} bytes, not shown: models take PNG, JPEG, GIF "
            "and WebP images]")


def describe_binary(uri: str | None, mime_type: str | None, size: int) -> str:
    """A one-line stand-in for binary content a model cannot read."""
    where = f" {uri}" if uri else ""
    return f"[binary resource{where}: {mime_type or 'application/octet-stream'}, {size} bytes, not shown]"


_TEXT_APPLICATION_TYPES = frozenset({"application/json", "application/xml", "application/yaml", "application/x-yaml",
                                     "application/javascript", "application/x-sh", "application/sql",
                                     "application/toml", "application/graphql", "application/x-ndjson"})


def is_text_mime(mime_type: str | None) -> bool:
    """True for mime types whose data is text: ``text/*``, JSON, XML, YAML and the like (``+json``/``+xml``)."""
    mime = (mime_type or "").split(";", 1)[0].strip().lower()
    return mime.startswith("text/") or mime in _TEXT_APPLICATION_TYPES or mime.endswith(("+json", "+xml", "+yaml"))


def blob_text(mime_type: str | None, data_b64: str) -> str | None:
    """The text in a blob whose mime type is textual (UTF-8, or the ``charset`` it names); ``None`` when the
    mime type is not textual or the data does not decode (it is then described as binary)."""
    if not is_text_mime(mime_type):
        return None
    charset = "utf-8"
    for param in (mime_type or "").split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip('"')
    try:
        return base64.b64decode(data_b64, validate=False).decode(charset)
    except (binascii.Error, ValueError, LookupError):
        return None


def block_text(block: object) -> str | None:
    """The text form of one content block, or ``None`` when it has none (images, audio, image blobs)."""
    if isinstance(block, TextContent):
        return block.text
    if isinstance(block, ImageContent) and not is_model_image(block.mime_type):
        return other_image_text(None, block.mime_type, block.data)
    if isinstance(block, ResourceLink):
        label = block.title or block.name
        mime = f" ({block.mime_type})" if block.mime_type else ""
        about = f": {block.description}" if block.description else ""
        return f"[resource link: {label} <{block.uri}>{mime}{about}]"
    if isinstance(block, EmbeddedResource):
        resource = block.resource
        if isinstance(resource, TextResourceContents):
            return resource.text
        mime = resource.mime_type or "application/octet-stream"
        if is_model_image(mime) or mime.startswith("audio/"):
            return None
        if mime.startswith("image/"):
            return other_image_text(str(resource.uri), mime, resource.blob)
        text = blob_text(mime, resource.blob)
        return text if text is not None else describe_binary(str(resource.uri), mime, blob_size(resource.blob))
    return None


def join_text(blocks: Iterable[object]) -> str:
    """All text of ``blocks`` joined by newlines."""
    return "\n".join(t for t in (block_text(b) for b in blocks) if t is not None)


def is_media(block: object) -> bool:
    """True for blocks that become image or audio parts (not text)."""
    if isinstance(block, ImageContent):
        return is_model_image(block.mime_type)
    if isinstance(block, AudioContent):
        return True
    if isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents):
        mime = block.resource.mime_type or ""
        return is_model_image(mime) or mime.startswith("audio/")
    return False


def media_part(block: object) -> dict[str, object] | None:
    """The LiteLLM part for one image/audio block (or image/audio blob), else ``None``."""
    if isinstance(block, ImageContent):
        return image_part(block.mime_type, block.data) if is_model_image(block.mime_type) else None
    if isinstance(block, AudioContent):
        return audio_part(block.mime_type, block.data)
    if isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents):
        mime = block.resource.mime_type or ""
        if is_model_image(mime):
            return image_part(mime, block.resource.blob)
        if mime.startswith("audio/"):
            return audio_part(mime, block.resource.blob)
    return None


def media_parts(blocks: Sequence[object]) -> list[dict[str, object]]:
    """Images (and image blobs) as ``image_url`` parts; audio (and audio blobs) as ``input_audio`` parts."""
    return [part for part in (media_part(b) for b in blocks) if part is not None]


def media_note(block: object) -> str:
    """What a text-only message says in place of a media block."""
    if isinstance(block, ImageContent | AudioContent):
        kind, mime = ("image" if isinstance(block, ImageContent) else "audio"), block.mime_type
    else:
        mime = (block.resource.mime_type if isinstance(block, EmbeddedResource) else None) or ""
        kind = "image" if mime.startswith("image/") else "audio"
    return f"[{kind} ({mime}) attached in the next message]"


def content_parts(blocks: Sequence[object], *, with_media: bool = True) -> list[dict[str, object]]:
    """``blocks`` as LiteLLM parts, in order: text, and media parts (or notes, without ``with_media``)."""
    parts: list[dict[str, object]] = []
    for block in blocks:
        text = block_text(block)
        if text is not None:
            parts.append({"type": "text", "text": text})
        elif is_media(block):
            part = media_part(block) if with_media else None
            parts.append(part if part is not None else {"type": "text", "text": media_note(block)})
    return parts


def resource_contents_parts(contents: Sequence[object], *, heading: str | None = None) -> list[dict[str, object]]:
    """``resources/read`` contents as user-message parts: text, an image part, or a description of binary data."""
    parts: list[dict[str, object]] = [{"type": "text", "text": heading}] if heading else []
    for item in contents:
        if isinstance(item, TextResourceContents):
            parts.append({"type": "text", "text": item.text})
        elif isinstance(item, BlobResourceContents):
            mime = item.mime_type or "application/octet-stream"
            text = blob_text(mime, item.blob)
            if is_model_image(mime):
                parts.append(image_part(mime, item.blob))
            elif mime.startswith("image/"):
                parts.append({"type": "text", "text": other_image_text(str(item.uri), mime, item.blob)})
            elif text is not None:
                parts.append({"type": "text", "text": text})
            else:
                parts.append({"type": "text", "text": describe_binary(str(item.uri), mime, blob_size(item.blob))})
    return parts


def contents_value(contents: Sequence[object]) -> str | bytes:
    """``resources/read`` contents as one value: ``str`` for text, ``bytes`` for blobs.

    Several text parts are joined by newlines; several blobs are concatenated; a mix gives the text
    with a description of each blob.
    """
    texts = [c for c in contents if isinstance(c, TextResourceContents)]
    blobs = [c for c in contents if isinstance(c, BlobResourceContents)]
    if blobs and not texts:
        return b"".join(base64.b64decode(b.blob) for b in blobs)
    pieces = [c.text if isinstance(c, TextResourceContents)
              else describe_binary(str(c.uri), c.mime_type, blob_size(c.blob)) for c in contents
              if isinstance(c, TextResourceContents | BlobResourceContents)]
    return "\n".join(pieces)


def simplify(parts: list[dict[str, object]]) -> str | list[dict[str, object]]:
    """Message content: a plain string when every part is text, else the parts."""
    if all(p.get("type") == "text" for p in parts):
        return "\n".join(str(p["text"]) for p in parts)
    return parts


def prompt_message(role: str, block: object) -> dict[str, object]:
    """One MCP prompt message as a LiteLLM message.

    Images and audio stay media parts in user messages; assistant messages take text only, so media
    there becomes a short description.
    """
    if role == "assistant":
        text = block_text(block)
        if text is None:
            text = media_note(block).replace("attached in the next message", "omitted")
        return {"role": "assistant", "content": text}
    if isinstance(block, EmbeddedResource):
        return {"role": "user", "content": simplify(resource_contents_parts([block.resource]))}
    return {"role": role, "content": simplify(content_parts([block]))}
