"""The test suite's MCP server, written with the SDK's MCPServer.

Run it as ``python tests/servers/fixture_server.py [stdio|streamable-http|sse] [--port N]``, or
import :func:`build_server` for the in-memory transport.
"""

from __future__ import annotations

import asyncio
import base64
import os
import sys
from typing import Annotated, Any

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp_types import (
    CallToolResult,
    Completion,
    EmbeddedResource,
    EmptyResult,
    ImageContent,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
)
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
    lists = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")
    # stable catalogs, cached for ten minutes; FIXTURE_LIST_TTL_MS=0: a server whose lists may not be cached
    ttl_ms = int(os.environ.get("FIXTURE_LIST_TTL_MS", "600000"))
    server = MCPServer(name, instructions="A test server for mcp-litellm.", version="1.2.3", log_level="WARNING",
                       cache_hints={method: CacheHint(ttl_ms=ttl_ms) for method in lists})

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

    _add_primitives(server, events)
    _add_client_features(server)
    return server


def _add_primitives(server: MCPServer, events: list[str]) -> None:
    """Tools, prompts and handlers for the primitives tests (tests/primitives)."""
    from mcp.server.mcpserver.prompts.base import Message
    from mcp.server.mcpserver.tools.base import Tool as ServerTool

    subscribed: set[str] = set()

    async def on_subscribe(ctx: Any, params: Any) -> EmptyResult:
        subscribed.add(str(params.uri))
        events.append(f"subscribe {params.uri}")
        return EmptyResult()

    async def on_unsubscribe(ctx: Any, params: Any) -> EmptyResult:
        subscribed.discard(str(params.uri))
        events.append(f"unsubscribe {params.uri}")
        return EmptyResult()

    async def on_set_level(ctx: Any, params: Any) -> EmptyResult:
        events.append(f"log level {params.level}")
        return EmptyResult()

    from mcp_types import SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams

    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/subscribe", SubscribeRequestParams, on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, on_unsubscribe)
    lowlevel.add_request_handler("logging/setLevel", SetLevelRequestParams, on_set_level)

    @server.tool(description="Return structured content that violates the declared output schema.")
    def bad_weather(city: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="broken")],
                              structured_content={"city": city, "temperature": "warm"})

    tool: ServerTool | None = server._tool_manager.get_tool("bad_weather")
    assert tool is not None
    tool.fn_metadata.output_schema = Weather.model_json_schema()

    @server.tool(description="Add a tool, a resource and a prompt, and announce that the lists changed.")
    async def grow(ctx: Context) -> str:
        count = sum(1 for e in events if e == "grow") + 1
        events.append("grow")
        server.add_tool(lambda: f"surprise {count}", name=f"surprise_{count}", description="Added at run time.")

        @server.prompt(name=f"later_{count}", description="Added at run time.")
        def later() -> str:
            return "later"

        await ctx.notify_tools_changed()
        await ctx.notify_prompts_changed()
        await ctx.notify_resources_changed()
        session = ctx.session
        await session.send_tool_list_changed()
        await session.send_prompt_list_changed()
        await session.send_resource_list_changed()
        return f"grew {count}"

    @server.tool(description="Announce that a resource changed.")
    async def touch(uri: str, ctx: Context) -> str:
        await ctx.notify_resource_updated(uri)
        if uri in subscribed:
            await ctx.session.send_resource_updated(uri)
        return f"touched {uri}"

    @server.tool(description="Log one message at each of several levels.")
    async def chatty(ctx: Context) -> str:
        for level in ("debug", "info", "warning", "error"):
            await ctx.log(level, f"{level} message", logger_name="chatty")
        return "logged"

    @server.prompt(description="A prompt with an image and an embedded resource.")
    def rich(topic: str) -> list[Any]:
        image = ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")
        embedded = EmbeddedResource(type="resource", resource=TextResourceContents(
            uri="file:///docs/readme.md", mime_type="text/markdown", text="# Fixture\nThis is the readme."))
        return [Message(f"Tell me about {topic}.", role="user"), Message(image, role="user"),
                Message(embedded, role="user")]

    @server.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        if isinstance(ref, PromptReference) and ref.name == "greeting" and argument.name == "name":
            names = ["Alice", "Albert", "Bob", "Carol"]
            found = [n for n in names if n.lower().startswith(argument.value.lower())]
            return Completion(values=found, total=len(found), has_more=False)
        if isinstance(ref, ResourceTemplateReference) and argument.name == "level":
            levels = ["debug", "info", "warning", "error"]
            date = (context.arguments or {}).get("date") if context else None
            found = [lv for lv in levels if lv.startswith(argument.value)]
            if date == "never":
                found = []
            return Completion(values=found, total=len(found), has_more=False)
        return None


def build_paging_server(pages: int = 3, per_page: int = 2, repeat_cursor: bool = False) -> Any:
    """A lowlevel server whose tools and prompts lists come in ``pages`` pages (or repeat a cursor)."""
    from mcp.server.lowlevel.server import Server
    from mcp_types import ListPromptsResult, ListToolsResult, Prompt, Tool

    def page_of(cursor: str | None) -> tuple[int, str | None]:
        index = int(cursor) if cursor else 0
        if repeat_cursor:
            return index, "1"
        return index, str(index + 1) if index + 1 < pages else None

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        index, next_cursor = page_of(params.cursor if params else None)
        tools = [Tool(name=f"tool_{index}_{i}", input_schema={"type": "object"}) for i in range(per_page)]
        return ListToolsResult(tools=tools, next_cursor=next_cursor)

    async def list_prompts(ctx: Any, params: Any) -> ListPromptsResult:
        index, next_cursor = page_of(params.cursor if params else None)
        return ListPromptsResult(prompts=[Prompt(name=f"prompt_{index}_{i}") for i in range(per_page)],
                                 next_cursor=next_cursor)

    return Server("paging", on_list_tools=list_tools, on_list_prompts=list_prompts)


def _add_client_features(server: MCPServer) -> None:
    """Tools that ask the client for sampling, elicitation and roots on both protocol eras (tests/features).

    On 2025-11-25 a request is pushed to the client and awaited. On 2026-07-28 the tool returns an
    ``InputRequiredResult`` and the client retries with the answers; answers from earlier rounds ride
    in ``request_state``, so multi-step flows (sample, run a tool, sample again) work on both.
    """
    import json

    from mcp.shared.message import ServerMessageMetadata
    from mcp_types import (
        CreateMessageRequest,
        CreateMessageRequestParams,
        CreateMessageResult,
        CreateMessageResultWithTools,
        ElicitRequest,
        ElicitRequestFormParams,
        ElicitRequestURLParams,
        ElicitResult,
        InputRequiredResult,
        ListRootsRequest,
        ListRootsResult,
        ModelHint,
        ModelPreferences,
        SamplingMessage,
        ToolChoice,
        ToolResultContent,
        ToolUseContent,
    )
    from mcp_types import Tool as SdkTool

    class NeedInput(Exception):
        def __init__(self, result: InputRequiredResult) -> None:
            super().__init__("input required")
            self.result = result

    class Asker:
        def __init__(self, ctx: Context) -> None:
            self.ctx = ctx
            self.modern = not (ctx.protocol_version or "2025-11-25").startswith(("2024", "2025"))
            known = json.loads(ctx.request_state) if self.modern and ctx.request_state else {}
            for key, answer in (ctx.input_responses or {}).items() if self.modern else ():
                known[key] = answer.model_dump(by_alias=True, mode="json", exclude_none=True)
            self.known: dict[str, Any] = known

        async def ask(self, key: str, request: Any, result_type: Any) -> Any:
            if not self.modern:
                return await self.ctx.session.send_request(
                    request, result_type, metadata=ServerMessageMetadata(related_request_id=self.ctx.request_id))
            if key in self.known:
                return result_type.model_validate(self.known[key])
            raise NeedInput(InputRequiredResult(input_requests={key: request}, request_state=json.dumps(self.known)))

        async def sample(self, key: str, params: CreateMessageRequestParams, tools: bool = False) -> Any:
            result_type = CreateMessageResultWithTools if tools else CreateMessageResult
            return await self.ask(key, CreateMessageRequest(params=params), result_type)

    def sampled(result: Any) -> dict[str, Any]:
        blocks = result.content if isinstance(result.content, list) else [result.content]
        return {"content": [b.model_dump(by_alias=True, mode="json", exclude_none=True) for b in blocks],
                "model": result.model, "stop_reason": result.stop_reason}

    @server.tool(description="Sample the client's model; returns JSON with content, model and stop reason.",
                 structured_output=False)
    async def sample_text(prompt: str, ctx: Context, max_tokens: int = 100, system_prompt: str | None = None,
                          temperature: float | None = None, stop: list[str] | None = None,
                          hints: list[str] | None = None, cost_priority: float | None = None,
                          speed_priority: float | None = None, intelligence_priority: float | None = None,
                          metadata: dict[str, Any] | None = None) -> Any:
        preferences = None
        if hints or cost_priority is not None or speed_priority is not None or intelligence_priority is not None:
            preferences = ModelPreferences(hints=[ModelHint(name=h) for h in hints or []] or None,
                                           cost_priority=cost_priority, speed_priority=speed_priority,
                                           intelligence_priority=intelligence_priority)
        params = CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
            max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature, stop_sequences=stop,
            model_preferences=preferences, metadata=metadata)
        try:
            return json.dumps(sampled(await Asker(ctx).sample("s", params)))
        except NeedInput as need:
            return need.result

    @server.tool(description="Ask the client's model about an image (image input in sampling).",
                 structured_output=False)
    async def sample_image(question: str, ctx: Context) -> Any:
        image = ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")
        params = CreateMessageRequestParams(
            messages=[SamplingMessage(role="user", content=[TextContent(type="text", text=question), image])],
            max_tokens=60)
        try:
            return json.dumps(sampled(await Asker(ctx).sample("s", params)))
        except NeedInput as need:
            return need.result

    weather_tool = SdkTool(name="get_weather", description="Weather for a city.",
                           input_schema={"type": "object", "properties": {"city": {"type": "string"}},
                                         "required": ["city"]})

    @server.tool(description="Sampling with a tool: the model may call get_weather; the server runs it and "
                             "samples again with the tool result.", structured_output=False)
    async def sample_with_tools(question: str, ctx: Context, tool_choice: str = "auto") -> Any:
        asker = Asker(ctx)
        first_messages = [SamplingMessage(role="user", content=TextContent(type="text", text=question))]
        try:
            first = await asker.sample("first", CreateMessageRequestParams(
                messages=first_messages, max_tokens=80, tools=[weather_tool],
                tool_choice=ToolChoice(mode=tool_choice)), tools=True)
            steps = [sampled(first)]
            uses = [b for b in first.content_as_list if isinstance(b, ToolUseContent)]
            if uses:
                results = [ToolResultContent(type="tool_result", tool_use_id=u.id, content=[
                    TextContent(type="text", text=f"{u.input.get('city', '?')}: 21C and sunny")]) for u in uses]
                second = await asker.sample("second", CreateMessageRequestParams(
                    messages=[*first_messages, SamplingMessage(role="assistant", content=first.content_as_list),
                              SamplingMessage(role="user", content=results)],
                    max_tokens=80, tools=[weather_tool]), tools=True)
                steps.append(sampled(second))
        except NeedInput as need:
            return need.result
        return json.dumps(steps)

    form_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
            "email": {"type": "string", "format": "email"},
            "homepage": {"type": "string", "format": "uri"},
            "birthday": {"type": "string", "format": "date"},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "height": {"type": "number", "minimum": 0.5, "maximum": 2.5},
            "subscribe": {"type": "boolean", "default": False},
            "color": {"type": "string", "enum": ["red", "green", "blue"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "pet": {"type": "string", "enum": ["cat", "dog"], "enumNames": ["Cat", "Dog"]},
            "toppings": {"type": "array", "items": {"type": "string", "enum": ["cheese", "ham", "olives"]},
                         "minItems": 1, "maxItems": 2},
            "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}},
        },
        "required": ["name", "email", "age", "color"],
    }

    @server.tool(description="Ask the user to fill a form using every schema field kind.", structured_output=False)
    async def elicit_form(ctx: Context) -> Any:
        params = ElicitRequestFormParams(message="Tell us about yourself", requested_schema=form_schema)
        try:
            result = await Asker(ctx).ask("form", ElicitRequest(params=params), ElicitResult)
        except NeedInput as need:
            return need.result
        return json.dumps({"action": result.action, "content": result.content})

    @server.tool(description="Ask the user to visit a URL (URL-mode elicitation).", structured_output=False)
    async def elicit_url(url: str, ctx: Context) -> Any:
        asker = Asker(ctx)
        params = ElicitRequestURLParams(message="Please sign in", url=url,
                                        elicitation_id=None if asker.modern else "elicit-42")
        try:
            result = await asker.ask("url", ElicitRequest(params=params), ElicitResult)
        except NeedInput as need:
            return need.result
        return json.dumps({"action": result.action, "content": result.content})

    @server.tool(description="List the client's roots (both protocol eras).", structured_output=False)
    async def client_roots(ctx: Context) -> Any:
        try:
            result = await Asker(ctx).ask("roots", ListRootsRequest(), ListRootsResult)
        except NeedInput as need:
            return need.result
        return json.dumps([{"uri": str(r.uri), "name": r.name} for r in result.roots])


def main(argv: list[str] | None = None) -> None:
    from tests.servers._main import run

    def build(args: Any) -> MCPServer:
        server = build_server(args.name)
        if os.environ.get("FIXTURE_BANNER"):
            print(os.environ["FIXTURE_BANNER"], file=sys.stderr, flush=True)
        return server

    run(build, argv, name="fixture", sse=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    main()
