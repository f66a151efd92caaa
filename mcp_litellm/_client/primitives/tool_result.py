"""``ToolResult``: what running an MCP tool returned, and how it goes back to a model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp_types import BlobResourceContents, CallToolResult, EmbeddedResource, ImageContent

from mcp_litellm._client.primitives.tool_ui import ToolUI
from mcp_litellm._core.clean_text import clean_result
from mcp_litellm._core.content import block_text, is_media, join_text, media_note, media_part, media_parts
from mcp_litellm._core.schema import provider_family
from mcp_litellm._core.types import ContentBlock


@dataclass
class ToolResult:
    """What a tool call returned.

    Attributes:
        content: the content blocks (SDK types: text, image, audio, resource link, embedded resource),
            with their mime types, uris and annotations.
        structured: the structured content (validated against the tool's output schema), or ``None``.
        is_error: True when the tool reported an error (or the call was denied / failed).
        tool_name: the server's name of the tool that ran.
        ui: the tool's interface (MCP Apps) when it has one: a host renders ``ui.resource_uri`` with this
            result (:meth:`Client.read_ui <mcp_litellm.Client.read_ui>` reads it); ``None`` otherwise.
    """

    content: list[ContentBlock]
    structured: dict[str, Any] | None = None
    is_error: bool = False
    tool_name: str = ""
    truncated_chars: int = 0
    ui: ToolUI | None = None

    @classmethod
    def from_sdk(cls, result: CallToolResult, tool_name: str, *, max_chars: int | None = None,
                 ui: ToolUI | None = None) -> ToolResult:
        """Build from the SDK's ``CallToolResult``, cutting text beyond ``max_chars``; ``ui``: the tool's
        interface, if it has one."""
        made = cls(content=list(result.content), structured=result.structured_content,
                   is_error=bool(result.is_error), tool_name=tool_name, ui=ui)
        if max_chars is not None:
            made._truncate(max_chars)
        return made

    @classmethod
    def error(cls, message: str, tool_name: str = "") -> ToolResult:
        """An error result carrying ``message`` (what the model is told)."""
        from mcp_types import TextContent

        return cls(content=[TextContent(type="text", text=message)], is_error=True, tool_name=tool_name)

    def _truncate(self, max_chars: int) -> None:
        """Keep the blocks, in order, that fit ``max_chars``.

        Text counts its characters (blocks are joined by newlines), and an image or audio block counts as
        the note that stands for it in text. The block that crosses the limit is cut (text) or left out
        (media), later blocks are left out, and a last text block says how much was cut.
        """
        from mcp_types import TextContent

        sizes = [_counted_size(block) for block in self.content]
        total = sum(sizes) + max(0, sum(1 for size in sizes if size) - 1)
        if total <= max_chars:
            return
        kept: list[ContentBlock] = []
        used, full, media_left_out = 0, False, 0
        for block, size in zip(self.content, sizes, strict=True):
            newline = 1 if used else 0  # before this block's text
            needed = size + (newline if size else 0)
            if not full and used + needed <= max_chars:
                kept.append(block)
                used += needed
                continue
            room = max_chars - used - newline
            if is_media(block):
                media_left_out += 1
            elif not full and room > 0:
                kept.append(TextContent(type="text", text=(block_text(block) or "")[:room]))
                used = max_chars
            full = True
        cut = total - used
        dropped = f", {media_left_out} image/audio block(s) left out" if media_left_out else ""
        kept.append(TextContent(type="text", text=f"[... {cut} of {total} characters cut{dropped}: "
                                                  f"the result exceeded max_result_chars={max_chars}]"))
        self.content = kept
        self.truncated_chars = cut

    @property
    def text(self) -> str:
        """All text content joined by newlines (structured content as JSON when there is no text)."""
        text = join_text(self.content)
        if not text and self.structured is not None:
            return json.dumps(self.structured, ensure_ascii=False)
        return text

    def __str__(self) -> str:
        return self.text

    def _tool_pieces(self, inline_images: bool) -> list[str | dict[str, Any]]:
        """The result in the server's order: text (with a note for each media block the message cannot
        carry) and, with ``inline_images``, image parts; neighbouring text is joined by newlines. The text
        is cleaned (``clean_result``: no terminal escapes, control or hidden characters; newlines and tabs
        stay)."""
        pieces: list[str | dict[str, Any]] = []
        for block in self.content:
            text = block_text(block)
            if text is None and is_media(block):
                if inline_images and _is_image(block):
                    part = media_part(block)
                    if part is not None:
                        pieces.append(part)
                    continue
                text = media_note(block)
            if text is None:
                continue
            text = clean_result(text)  # no terminal escapes or hidden characters reach the model
            if pieces and isinstance(pieces[-1], str):
                pieces[-1] = f"{pieces[-1]}\n{text}"
            else:
                pieces.append(text)
        if all(isinstance(piece, str) and not piece.strip() for piece in pieces):
            pieces = ["Tool call failed" if self.is_error else "(no output)"]
        if self.is_error:  # the model reads the outcome first
            first = pieces[0]
            if not isinstance(first, str):
                pieces.insert(0, "Error:")
            elif not first.lower().startswith(("error", "tool call")):
                pieces[0] = f"Error: {first}"
        return pieces

    def _tool_text(self, inline_images: bool) -> str:
        return "\n".join(piece for piece in self._tool_pieces(inline_images) if isinstance(piece, str))

    def to_message(self, tool_call_id: str, model: str | None = None) -> dict[str, Any]:
        """A LiteLLM ``role: "tool"`` message answering ``tool_call_id``.

        With a ``model`` whose provider takes images inside tool results through LiteLLM (Anthropic,
        Gemini / Vertex AI, Bedrock), images are ``image_url`` parts of this message, in the server's
        order among the text (Gemini takes a tool's text as one piece with its images after it, so
        there each image's place in the text is marked ``[image N (mime type), attached]``).
        Otherwise (OpenAI and every other provider, or no model given) the message is text that
        notes each image or audio block, and :meth:`media_message` carries the media;
        :meth:`to_messages` gives both.
        """
        inline = images_in_tool_messages(model)
        pieces = self._tool_pieces(inline)
        if all(isinstance(piece, str) for piece in pieces):
            return {"role": "tool", "tool_call_id": tool_call_id, "content": "\n".join(map(str, pieces))}
        if provider_family(model or "") == "gemini":
            pieces = _images_after_text(pieces)
        content = [{"type": "text", "text": piece} if isinstance(piece, str) else piece for piece in pieces]
        return {"role": "tool", "tool_call_id": tool_call_id, "content": content}

    def media_message(self, model: str | None = None) -> dict[str, Any] | None:
        """A ``role: "user"`` message with the media :meth:`to_message` could not carry for ``model``, or ``None``.

        Send it after all tool messages of the turn (providers want tool messages right after the
        assistant message that asked for them).
        """
        inline_images = images_in_tool_messages(model)
        blocks = [b for b in self.content if is_media(b) and not (inline_images and _is_image(b))]
        if not blocks:
            return None
        label = f"tool {self.tool_name!r}" if self.tool_name else "the tool"
        intro = {"type": "text", "text": f"Media returned by {label}:"}
        return {"role": "user", "content": [intro, *media_parts(blocks)]}

    def to_messages(self, tool_call_id: str, model: str | None = None) -> list[dict[str, Any]]:
        """The tool message and, when needed, the follow-up user message with media (see :meth:`to_message`)."""
        media = self.media_message(model)
        return [self.to_message(tool_call_id, model), *([media] if media else [])]

    @staticmethod
    def batch_messages(results: Sequence[tuple[str, ToolResult]], model: str | None = None) -> list[dict[str, Any]]:
        """Messages for several ``(tool_call_id, result)`` pairs of one turn: all tool messages first, then
        one user message with every result's media that the tool messages could not carry."""
        messages = [result.to_message(call_id, model) for call_id, result in results]
        media = [m for m in (result.media_message(model) for _, result in results) if m is not None]
        if media:
            messages.append({"role": "user", "content": [part for m in media for part in m["content"]]})
        return messages

    def media_parts(self) -> list[dict[str, Any]]:
        """Images and audio in the result, as LiteLLM content parts."""
        return media_parts(self.content)


def images_in_tool_messages(model: str | None) -> bool:
    """Whether LiteLLM turns ``image_url`` parts of a tool message into images for ``model``'s provider.

    True for Anthropic, Gemini / Vertex AI and Bedrock (LiteLLM converts them into the provider's
    tool-result image blocks). False for OpenAI, whose tool messages take text only, for every other
    provider, and when no model is given.
    """
    if not model:
        return False
    provider = model.lower().split("/", 1)[0] if "/" in model else ""
    return provider in {"bedrock", "bedrock_converse"} or provider_family(model) in {"anthropic", "gemini"}


def _images_after_text(pieces: list[str | dict[str, Any]]) -> list[str | dict[str, Any]]:
    """One text (each image's place marked ``[image N (mime), attached]``) followed by the images, in order."""
    texts: list[str] = []
    images: list[str | dict[str, Any]] = []
    for piece in pieces:
        if isinstance(piece, str):
            texts.append(piece)
        else:
            images.append(piece)
            url = str(piece.get("image_url", {}).get("url", ""))
            mime = url[5:].split(";", 1)[0] if url.startswith("data:") else "image"
            texts.append(f"[image {len(images)} ({mime}), attached]")
    return ["\n".join(texts), *images]


def _counted_size(block: object) -> int:
    """What ``block`` counts toward ``max_result_chars``: its text, or the note that stands for a media block."""
    text = block_text(block)
    if text is not None:
        return len(text)
    return len(media_note(block)) if is_media(block) else 0


def _is_image(block: object) -> bool:
    if isinstance(block, ImageContent):
        return True
    return (isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents)
            and (block.resource.mime_type or "").startswith("image/"))


__all__ = ["ToolResult", "images_in_tool_messages"]
