"""A small MCP server shipped with mcp-litellm, so there is something to connect to on a fresh install.

Run it over stdio with ``python -m mcp_litellm.demo_server`` (this is what ``mcp-litellm`` uses when no
``--config`` is given), or import :func:`build_server` and connect with the ``memory`` transport.

It offers a few tools (``add``, ``word_count``, ``roll_dice``, ``countdown`` with progress
notifications, ``write_haiku`` that asks the client's model through sampling, ``greet`` that asks the
user through elicitation), one resource (``demo://about``), one resource template
(``demo://notes/{topic}``) and one prompt (``summarize``).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
)

from mcp_litellm._core.protocol import is_modern

NOTES = {
    "mcp": "The Model Context Protocol connects language models to tools, resources and prompts.",
    "litellm": "LiteLLM calls 100+ model providers with one OpenAI-style API.",
}

ABOUT = """# mcp-litellm demo server

A tiny MCP server that ships inside the mcp-litellm package.

- tools: add, word_count, roll_dice, countdown, write_haiku (sampling), greet (elicitation)
- resource: demo://about (this text)
- template: demo://notes/{topic} (topics: mcp, litellm)
- prompt: summarize(text, style)
"""


_VISITOR: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name"},
        "language": {"type": "string", "title": "Language", "default": "en",
                     "oneOf": [{"const": "en", "title": "English"}, {"const": "fr", "title": "French"},
                               {"const": "de", "title": "German"}]},
    },
    "required": ["name"],
}
_HELLO = {"en": "Hello", "fr": "Bonjour", "de": "Hallo"}


class _NeedInput(Exception):
    """A 2026-07-28 tool call that needs the client's input first: return ``result`` to ask for it."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


async def _ask(ctx: Context, key: str, request: Any, result_type: Any) -> Any:
    """Ask the client (sampling or elicitation) on either protocol era.

    Up to 2025-11-25 the server sends the request during the tool call. From 2026-07-28 the tool call
    answers "input required" and the client calls again with the answer (``_NeedInput``).
    """
    if not is_modern(ctx.protocol_version):
        return await ctx.session.send_request(
            request, result_type, metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
    answer = (ctx.input_responses or {}).get(key)
    if answer is not None:
        return result_type.model_validate(answer.model_dump(by_alias=True, mode="json", exclude_none=True))
    raise _NeedInput(InputRequiredResult(input_requests={key: request}))


def _hint(error: Exception, what: str) -> str:
    """What to do when the client did not offer the capability a tool needs."""
    return f" (the client must {what})" if "not supported" in str(error).lower() else ""


def build_server(name: str = "demo") -> MCPServer:
    """Build the demo server (not started)."""
    server = MCPServer(name, instructions="A demo server shipped with mcp-litellm.", version="1.0.0",
                       log_level="WARNING")

    @server.tool(description="Add two integers and return the sum.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Count the words and characters in a text.")
    def word_count(text: str) -> dict[str, int]:
        return {"words": len(text.split()), "characters": len(text)}

    @server.tool(description="Roll `count` dice with `sides` sides each; returns the rolls.")
    def roll_dice(sides: int = 6, count: int = 1) -> list[int]:
        if not 1 <= count <= 100 or not 2 <= sides <= 1000:
            raise ValueError("count must be 1..100 and sides 2..1000")
        return [random.randint(1, sides) for _ in range(count)]

    @server.tool(description="Count down from `seconds` to zero, reporting progress every second.")
    async def countdown(ctx: Context, seconds: int = 3) -> str:
        seconds = max(0, min(seconds, 60))
        for done in range(seconds):
            await ctx.report_progress(done, seconds, f"{seconds - done} s left")
            await asyncio.sleep(1)
        await ctx.report_progress(seconds, seconds, "done")
        return f"counted down from {seconds}"

    @server.tool(description="Write a haiku about `topic` with the client's own model (MCP sampling).",
                 structured_output=False)
    async def write_haiku(ctx: Context, topic: str = "the sea") -> Any:
        ask = TextContent(type="text", text=f"Write a haiku about {topic}.")
        params = CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=ask)], max_tokens=100,
            system_prompt="You are a poet. Answer with the haiku only.")
        try:
            result = await _ask(ctx, "haiku", CreateMessageRequest(params=params), CreateMessageResult)
        except _NeedInput as need:
            return need.result
        except Exception as exc:  # raised again: the tool's result is an error the client and model can read
            raise ToolError(f"could not sample: {exc}" + _hint(exc, "allow sampling (sampling=True on the "
                                                                     "client, or 'mcp-litellm chat --allow-sampling')")
                             ) from exc
        text = result.content.text if isinstance(result.content, TextContent) else str(result.content)
        return f"{text}\n(written by {result.model})"

    @server.tool(description="Ask the user for their name (MCP elicitation), then greet them.",
                 structured_output=False)
    async def greet(ctx: Context) -> Any:
        params = ElicitRequestFormParams(message="Who is there?", requested_schema=_VISITOR)
        try:
            answer = await _ask(ctx, "visitor", ElicitRequest(params=params), ElicitResult)
        except _NeedInput as need:
            return need.result
        except Exception as exc:
            raise ToolError(f"could not ask the user: {exc}" + _hint(exc, "handle elicitation (elicitation=handler "
                                                                           "on the client; 'mcp-litellm chat' asks "
                                                                           "in the terminal)")) from exc
        if answer.action != "accept" or not answer.content:
            return f"no greeting: the user chose to {answer.action}"
        hello = _HELLO.get(str(answer.content.get("language", "en")), "Hello")
        return f"{hello}, {answer.content.get('name')}!"

    @server.resource("demo://about", name="about", description="What this demo server offers.",
                     mime_type="text/markdown")
    def about() -> str:
        return ABOUT

    @server.resource("demo://notes/{topic}", name="notes", description="A short note on a topic (mcp, litellm).",
                     mime_type="text/plain")
    def notes(topic: str) -> str:
        return NOTES.get(topic.lower(), f"No note about {topic!r}; topics: {', '.join(sorted(NOTES))}.")

    @server.prompt(description="Ask the model to summarize a text in a given style.")
    def summarize(text: str, style: str = "one sentence") -> str:
        return f"Summarize the following text in {style}:\n\n{text}"

    return server


def main() -> None:
    """Serve the demo server over stdio."""
    build_server().run()


if __name__ == "__main__":  # pragma: no cover - exercised as a subprocess
    main()
