"""``Tool`` and ``ToolResult``: an MCP tool as LiteLLM sees it, and what running it returned."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcp_types import BlobResourceContents, CallToolResult, EmbeddedResource, ImageContent, ToolAnnotations

from mcp_litellm._client.progress import ProgressHandler
from mcp_litellm._core.content import block_text, is_media, join_text, media_note, media_part, media_parts
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.schema import provider_family, schema_for_model
from mcp_litellm._core.types import ContentBlock

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client
    from mcp_litellm._client.tasks import Task

_DEFAULT_ANNOTATIONS = {"read_only_hint": False, "destructive_hint": True, "idempotent_hint": False,
                        "open_world_hint": True}


def _with_spec_defaults(annotations: ToolAnnotations | None) -> ToolAnnotations:
    given = annotations.model_dump(exclude_none=True) if annotations is not None else {}
    return ToolAnnotations(**{**_DEFAULT_ANNOTATIONS, **given})


@dataclass(eq=False, frozen=True)
class Tool:
    """A tool offered by an MCP server.

    ``name`` is what the model sees (provider-safe, maybe prefixed); ``mcp_name`` is the server's own
    name, used on the wire. Frozen: a client's cached tools are shared, so a different name (a group's
    prefix) is a copy made with ``dataclasses.replace``.
    """

    name: str
    mcp_name: str
    description: str
    input_schema: dict[str, Any]
    client: Client = field(repr=False)
    title: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: ToolAnnotations = field(default_factory=lambda: _with_spec_defaults(None))
    task_support: str = "forbidden"
    """Whether the tool runs as a task: ``"required"``, ``"optional"`` (when asked) or ``"forbidden"``."""

    def to_litellm(self, model: str | None = None) -> dict[str, Any]:
        """The LiteLLM (OpenAI-format) tool definition; ``model`` applies that provider's schema rules."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description or self.title or self.mcp_name,
                "parameters": schema_for_model(self.input_schema, model),
            },
        }

    def _call_arguments(self, method: str, arguments: Mapping[str, Any] | None, kwargs: Mapping[str, Any],
                        options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The tool's arguments and the call's options, as ``(arguments, options)``: new dicts, the
        caller's are never changed.

        A mapping given positionally holds tool arguments, and then every keyword option is an option.
        Without a mapping, keywords are the tool's arguments; an option keyword (``timeout=``...) the
        tool's schema also declares is ambiguous there: as before, it goes to the tool, with a
        ``DeprecationWarning`` saying how to write the call unambiguously.
        """
        if arguments is not None and not isinstance(arguments, Mapping):
            raise ConfigError(f"{method}() takes the tool's arguments as one mapping (or as keywords), "
                              f"got {type(arguments).__name__}")
        merged = {**(arguments or {}), **kwargs}
        chosen = dict(options)
        declared = self.input_schema.get("properties")
        if arguments is None and isinstance(declared, Mapping):
            ambiguous = [key for key, value in options.items()
                         if value is not None and key in declared and key not in merged]
            if ambiguous:
                names = ", ".join(repr(key) for key in ambiguous)
                keywords = ", ".join(f"{key}=..." for key in ambiguous)
                mapping = ", ".join(f"{key!r}: ..." for key in ambiguous)
                warnings.warn(
                    f"tool {self.name!r} has an argument named {names}, so {method}({keywords}) passes it to "
                    f"the tool; this keyword form is deprecated: pass the tool's arguments as a mapping, "
                    f"{method}({{{mapping}}}), and the call's options beside it ({method}({{...}}, {keywords}))",
                    DeprecationWarning, stacklevel=3)
                for key in ambiguous:
                    merged[key], chosen[key] = options[key], None
        return merged, chosen

    async def aexecute(self, arguments: Mapping[str, Any] | None = None, /, *, timeout: float | None = None,
                       on_progress: ProgressHandler | None = None, task: bool | None = None,
                       **kwargs: Any) -> ToolResult:
        """Call the tool with ``arguments`` (a mapping, or keywords); see :meth:`execute`."""
        merged, options = self._call_arguments("aexecute", arguments, kwargs,
                                               {"timeout": timeout, "on_progress": on_progress, "task": task})
        return await self.client.aexecute_tool(self, merged, **options)

    def execute(self, arguments: Mapping[str, Any] | None = None, /, *, timeout: float | None = None,
                on_progress: ProgressHandler | None = None, task: bool | None = None, **kwargs: Any) -> ToolResult:
        """Call the tool and return its :class:`ToolResult`.

        The tool's arguments go as one mapping (``tool.execute({"a": 1, "b": 2})``) or as keywords
        (``tool.execute(a=1, b=2)``). ``timeout=`` (seconds for this call), ``on_progress=`` and ``task=``
        are the call's options. With a mapping they always are, whatever the tool's arguments are called:
        ``tool.execute({"timeout": 30}, timeout=5)`` gives the tool ``timeout=30`` and the call 5 seconds.
        In the keyword form, an option the tool's input schema also declares goes to the tool, as it did
        before; that is deprecated (a ``DeprecationWarning`` says so): use the mapping. The mapping is
        never changed.

        A tool whose ``task_support`` is ``"required"`` runs as a task (``task=True`` asks for one from an
        ``"optional"`` tool): the call waits for the task, reports its status messages to ``on_progress``
        and cancels it on timeout or cancellation. The result is the same :class:`ToolResult`.
        """
        merged, options = self._call_arguments("execute", arguments, kwargs,
                                               {"timeout": timeout, "on_progress": on_progress, "task": task})
        return self.client.execute_tool(self, merged, **options)

    async def astart_task(self, arguments: Mapping[str, Any] | None = None, /, *, ttl: float | None = None,
                          **kwargs: Any) -> Task:
        """Async twin of :meth:`start_task`."""
        merged, options = self._call_arguments("astart_task", arguments, kwargs, {"ttl": ttl})
        return await self.client.astart_task(self, merged, **options)

    def start_task(self, arguments: Mapping[str, Any] | None = None, /, *, ttl: float | None = None,
                   **kwargs: Any) -> Task:
        """Start the tool as a task on the server and return its :class:`~mcp_litellm.Task` handle at once.

        Arguments go as in :meth:`execute` (with a mapping, ``ttl=`` is always the option). ``ttl`` asks
        the server to keep the task (and its result) that many seconds from its creation; the server may
        grant less (``task.ttl`` says). Then ``task.result()`` waits for the :class:`ToolResult`,
        ``task.refresh()`` reads the status and ``task.cancel()`` cancels. A server that runs the call at
        once gives an already completed task.
        """
        merged, options = self._call_arguments("start_task", arguments, kwargs, {"ttl": ttl})
        return self.client.start_task(self, merged, **options)


@dataclass
class ToolResult:
    """What a tool call returned.

    Attributes:
        content: the content blocks (SDK types: text, image, audio, resource link, embedded resource),
            with their mime types, uris and annotations.
        structured: the structured content (validated against the tool's output schema), or ``None``.
        is_error: True when the tool reported an error (or the call was denied / failed).
        tool_name: the server's name of the tool that ran.
    """

    content: list[ContentBlock]
    structured: dict[str, Any] | None = None
    is_error: bool = False
    tool_name: str = ""
    truncated_chars: int = 0

    @classmethod
    def from_sdk(cls, result: CallToolResult, tool_name: str, *, max_chars: int | None = None) -> ToolResult:
        """Build from the SDK's ``CallToolResult``, cutting text beyond ``max_chars``."""
        made = cls(content=list(result.content), structured=result.structured_content,
                   is_error=bool(result.is_error), tool_name=tool_name)
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
        carry) and, with ``inline_images``, image parts; neighbouring text is joined by newlines."""
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


def _counted_size(block: Any) -> int:
    """What ``block`` counts toward ``max_result_chars``: its text, or the note that stands for a media block."""
    text = block_text(block)
    if text is not None:
        return len(text)
    return len(media_note(block)) if is_media(block) else 0


def _is_image(block: Any) -> bool:
    if isinstance(block, ImageContent):
        return True
    return (isinstance(block, EmbeddedResource) and isinstance(block.resource, BlobResourceContents)
            and (block.resource.mime_type or "").startswith("image/"))


def to_litellm_tools(tools: Iterable[Tool], model: str | None = None) -> list[dict[str, Any]]:
    """LiteLLM tool definitions for ``tools`` (see :meth:`Tool.to_litellm`); ``model`` applies its provider's rules."""
    return [tool.to_litellm(model) for tool in tools]
