"""The test suite's MCP server, written with the SDK's MCPServer.

Run it as ``python tests/servers/fixture_server.py [stdio|streamable-http|sse] [--port N]``, or
import :func:`build_server` for the in-memory transport.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
from typing import Annotated, Any

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp_types import TextContent
from pydantic import BaseModel, Field

# 1x1 transparent PNG
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


class Weather(BaseModel):
    city: str
    temperature: float = Field(description="degrees Celsius")
    conditions: str


class Address(BaseModel):
    street: str
    zip: str


class Person(BaseModel):
    name: str
    addresses: list[Address]


def build_server(name: str = "fixture") -> MCPServer:
    server = MCPServer(name, instructions="A test server for mcp-litellm.", version="1.2.3", log_level="WARNING")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Echo a message back.")
    def echo(message: str) -> str:
        return message

    @server.tool(description="Sleep, reporting progress and logging each step.")
    async def slow(seconds: float, ctx: Context, steps: int = 3) -> str:
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}/{steps}")
            await ctx.info(f"slow step {i + 1}")
            await asyncio.sleep(seconds / steps)
        return f"slept {seconds}"

    events: list[str] = []

    @server.tool(description="Sleep; records whether the call was cancelled (see `events`).")
    async def wait(seconds: float) -> str:
        try:
            await asyncio.sleep(seconds)
        except BaseException:
            events.append("wait cancelled")
            raise
        events.append("wait finished")
        return "waited"

    @server.tool(description="What happened to earlier `wait` calls.")
    def server_events() -> list[str]:
        return list(events)

    @server.tool(description="Exit the server process abruptly (for crash tests).")
    def crash() -> str:
        os._exit(3)

    @server.tool(description="Always fails.")
    def fail(reason: str = "boom") -> str:
        raise ValueError(reason)

    @server.tool(description="Return a tiny PNG image with a caption.", structured_output=False)
    def picture() -> list[Any]:
        return [TextContent(type="text", text="a tiny image"), Image(data=PNG, format="png").to_image_content()]

    @server.tool(description="Current weather, as structured content.")
    def weather(city: str) -> Weather:
        return Weather(city=city, temperature=21.5, conditions="sunny")

    @server.tool(description="Store a person with nested addresses.")
    def store_person(person: Person, tags: list[str] | None = None) -> str:
        return f"{person.name} has {len(person.addresses)} address(es); tags={tags or []}"

    @server.tool(description="Return a long text of n characters.")
    def long_text(n: int) -> str:
        return "x" * n

    @server.tool(description="Read the PID of the server process.")
    def pid() -> int:
        return os.getpid()

    @server.tool(description="Ask the client's model a question through sampling.")
    async def ask_model(question: str, ctx: Context) -> str:
        from mcp_types import SamplingMessage

        result = await ctx.session.create_message(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=question))],
            max_tokens=50,
            system_prompt="Answer briefly.",
        )
        content = result.content
        return content.text if isinstance(content, TextContent) else str(content)

    @server.tool(description="Ask the user for their name and age through elicitation.")
    async def ask_user(ctx: Context) -> str:
        class Info(BaseModel):
            name: str
            age: Annotated[int, Field(ge=0, le=150)]

        result = await ctx.elicit("Who are you?", Info)
        if result.action == "accept":
            return f"hello {result.data.name}, {result.data.age}"
        return f"elicitation {result.action}"

    @server.tool(description="List the client's roots.")
    async def roots(ctx: Context) -> str:
        listed = await ctx.session.list_roots()
        return "\n".join(str(r.uri) for r in listed.roots) or "(no roots)"

    @server.resource("file:///docs/readme.md", name="readme", description="The project readme.",
                     mime_type="text/markdown")
    def readme() -> str:
        return "# Fixture\nThis is the readme."

    @server.resource("file:///images/pixel.png", name="pixel", description="A 1x1 PNG.", mime_type="image/png")
    def pixel() -> bytes:
        return PNG

    @server.resource("file:///data/blob.bin", name="blob", description="Binary data.",
                     mime_type="application/octet-stream")
    def blob() -> bytes:
        return bytes(range(16))

    @server.resource("logs://{date}/{level}", name="logs", description="Logs for a date and level.",
                     mime_type="text/plain")
    def logs(date: str, level: str) -> str:
        return f"{level} logs for {date}: all quiet"

    @server.prompt(description="Greet someone by name.")
    def greeting(name: str, time: str = "morning") -> str:
        return f"Good {time}, {name}! Please greet me back."

    @server.prompt(description="A short conversation about code review.")
    def review(code: str) -> list[Any]:
        return [UserMessage(f"Review this code:\n{code}"), AssistantMessage("Sure, looking at it now.")]

    return server


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", nargs="?", default="stdio", choices=["stdio", "streamable-http", "sse"])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--name", default="fixture")
    args = parser.parse_args(argv)
    server = build_server(args.name)
    if os.environ.get("FIXTURE_BANNER"):
        print(os.environ["FIXTURE_BANNER"], file=sys.stderr, flush=True)
    if args.transport == "stdio":
        server.run()
    else:
        server.run(args.transport, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
