"""A small MCP server shipped with mcp-litellm, so there is something to connect to on a fresh install.

Run it over stdio with ``python -m mcp_litellm.demo_server`` (this is what ``mcp-litellm`` uses when no
``--config`` is given), or import :func:`build_server` and connect with the ``memory`` transport.

It offers a few tools (``add``, ``word_count``, ``roll_dice``, ``countdown`` with progress
notifications), one resource (``demo://about``), one resource template (``demo://notes/{topic}``)
and one prompt (``summarize``).
"""

from __future__ import annotations

import asyncio
import random

from mcp.server.mcpserver import Context, MCPServer

NOTES = {
    "mcp": "The Model Context Protocol connects language models to tools, resources and prompts.",
    "litellm": "LiteLLM calls 100+ model providers with one OpenAI-style API.",
}

ABOUT = """# mcp-litellm demo server

A tiny MCP server that ships inside the mcp-litellm package.

- tools: add, word_count, roll_dice, countdown
- resource: demo://about (this text)
- template: demo://notes/{topic} (topics: mcp, litellm)
- prompt: summarize(text, style)
"""


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
