"""A typed user program: every public entry point, sync and async, as a user's ``mypy --strict`` sees it.

It is type-checked by ``test_types.py`` (not run): a change that loosens or breaks a public signature
shows up there as a mypy error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

from litellm.router import Router
from typing_extensions import assert_type

import mcp_litellm as ml
from mcp_litellm.handlers import (
    Decision,
    Elicitation,
    ElicitationHandler,
    ElicitationRegistry,
    HumanInTheLoopHandler,
    HumanInTheLoopRegistry,
    Sample,
    SamplingHandler,
    accept,
    approve,
    decline,
    deny,
    guard,
)


class CheapSampling(SamplingHandler):
    default_options: ClassVar[Mapping[str, Any]] = {"model": "gpt-4o-mini"}

    @guard
    def short_enough(self) -> bool | str:
        return len(self.sample.message) < 10_000 or "too long"

    def execute(self) -> Decision | bool:
        return self.accept(self.default_completion())


class AskUser(ElicitationHandler):
    async def execute(self) -> Decision:
        if self.elicitation.requested_schema is None:
            return self.decline("URL mode is not supported here")
        return self.accept({"name": "Ada"})


class ReadOnlyOnly(HumanInTheLoopHandler):
    def execute(self) -> Decision:
        if self.annotations is not None and self.annotations.read_only_hint:
            return self.approve()
        return self.deny("only read-only tools")


def sample_fn(sample: Sample) -> Decision:
    return accept(f"echo: {sample.message}")


async def elicit_fn(elicitation: Elicitation) -> dict[str, Any]:
    return {"answer": elicitation.message}


def approve_fn(tool_name: str, parameters: dict[str, Any]) -> bool | str:
    return tool_name != "delete" or "not that one"


def on_progress(progress: float, total: float | None, message: str | None, tool_name: str) -> None:
    print(f"{tool_name}: {progress}/{total if total is not None else '?'} {message or ''}")


def show_update(update: ml.ProgressUpdate) -> None:
    print(f"{update.server}/{update.tool}: {update.progress}/{update.total if update.total is not None else '?'}")


def on_log(level: str, logger: str | None, data: Any) -> None:
    print(level, logger, data)


def sync_use() -> None:
    ml.configure(sampling={"enabled": True, "default_model": "gpt-4o-mini"}, roots=["."])
    ml.config.on_human_in_the_loop(approve_fn)
    client: ml.Client = ml.client("demo", "stdio", {"command": "python", "args": ["-m", "mcp_litellm.demo_server"]},
                                  request_timeout=8.0, sampling=CheapSampling, elicitation=AskUser,
                                  human_in_the_loop=ReadOnlyOnly, start=False)
    ml.Client("other", "streamable", {"url": "http://127.0.0.1:1/mcp"}, start=False, with_prefix=True)
    typed: ml.StreamableConfig = {"transport": "http", "url": "http://127.0.0.1:1/mcp", "timeout": 5, "auth": "oauth"}
    stdio: ml.StdioConfig = {"command": "python", "args": ["-m", "x"], "env": {"A": "1"}, "cwd": "."}
    sse: ml.SseConfig = {"url": "http://127.0.0.1:1/sse", "headers": {"X": "y"}, "oauth": {"scopes": ["read"]}}
    for config in (typed, stdio, sse):
        ml.Client("typed", config=config, start=False)
    with client:
        client.on_sampling(sample_fn).on_elicitation(elicit_fn).on_human_in_the_loop(approve_fn)
        client.on_progress(on_progress).on_progress(lambda p, total, message: None)
        client.on_progress(show_update).on_progress(lambda update: print(update.message or update.tool))
        client.on_logging(on_log, level="warning").on_list_changed(print).on_resource_updated(print)
        tools: list[ml.Tool] = client.tools()
        result: ml.ToolResult = client.execute_tool("add", {"a": 1, "b": 2}, timeout=5, on_progress=on_progress)
        print(result.text, result.is_error, result.structured, [block.type for block in result.content])
        print(client.tool("add").execute({"a": 1, "b": 2}, on_progress=show_update).to_message("call_1"))
        print(client.tools(refresh=True), client.tool("add", refresh=True))
        print(ml.to_litellm_tools(tools, "gpt-4o-mini"), client.server_info, client.protocol_version)
        resources: list[ml.Resource] = client.resources()
        text: str | bytes = resources[0].content() if resources else client.read_resource("demo://readme")
        template: ml.ResourceTemplate = client.resource_template("greeting")
        prompt: ml.Prompt = client.prompt("review")
        completion: ml.Completion = prompt.complete("language", "py")
        print(text, template.to_content({"name": "x"}), prompt.messages({"code": "x"}), completion.values)
        print(client.roots.paths, client.sampling_settings.enabled, client.elicitation_settings.timeout, client.ping())
        spent: ml.Usage = client.sampling_usage
        print(spent.requests, spent.total_tokens, spent.cost, client.sampling_settings.max_cost)

        chat = ml.Chat("gpt-4o-mini", temperature=0).with_tools(*tools).with_instructions("Be brief.")
        chat.with_resource(resources[0]).with_resource_template(template, {"name": "x"}).with_prompt(prompt, {})
        chat.on_tool_call(lambda call: print(call.name, call.arguments))
        chat.on_tool_result(lambda result: print(result.text))
        chat.on_tool_result(lambda call, result: print(call.id, result.is_error))
        chat.on_new_message(lambda message: print(message.role)).on_new_message(lambda: None)
        chat.on_tool_call(lambda call, context: print(call.id, context.server, context.origin), context=True)
        chat.on_tool_result(lambda result, context: print(result.text, context.call.name, context.tool), context=True)
        chat.on_new_message(lambda message, context: print(message.text, context.round), context=True)
        reply: ml.Message = chat.ask("Add 1 and 2", on_chunk=lambda chunk: print(chunk.content or "", end=""))
        print(reply.text, reply.input_tokens, chat.ask_prompt(prompt, {"code": "x"}).content)
        for chunk in chat.stream("Again"):
            if chunk.is_tool_end and chunk.tool_result is not None:
                print(chunk.tool_result.text)
        searching = ml.Chat("gpt-4o-mini", tool_search="auto", tool_budget=2_000, result_budget=4_000)
        ml.Chat("gpt-4o-mini", tool_search_embedding="openai/text-embedding-3-small")
        ml.Chat("gpt-4o-mini", tool_search_embedding={"model": "openai/emb", "api_base": "http://127.0.0.1:8000/v1"})
        usage: ml.Usage | None = reply.usage
        cost: float | None = chat.usage.cost
        print(searching.tool_definitions(), usage.total_tokens if usage else 0, cost, ml.Chat("m", tool_search=False))

    servers = ml.load_config("mcp.json")
    with ml.establish_connection(servers) as group:
        group_tools: list[ml.Tool] = group.tools(exclude=["dangerous"])
        first: ml.Client | None = group.get(group.names[0]) if group.names else None
        print(group_tools, first, group.resources(), group.prompts())
        assert_type(group.resources(), list[ml.Resource])  # the merged lists keep their item types
        assert_type(group.resource_templates(refresh=True), list[ml.ResourceTemplate])
        assert_type(group.prompts(), list[ml.Prompt])
        called: ml.ToolResult = group.execute_tool("add", {"a": 1, "b": 2}, timeout=5)
        content: str | bytes = group.read_resource("demo://about")
        by_server: dict[str, ml.Usage] = group.sampling_usage
        print(called.text, content, by_server)
    router = Router(model_list=[{"model_name": "cheap", "litellm_params": {"model": "gpt-4o-mini"}}])
    ml.Chat("cheap", router=router)
    ElicitationRegistry.complete("id", {"name": "Ada"})
    HumanInTheLoopRegistry.approve("id")
    print(approve(), deny("no"), decline(), ml.__version__)


async def async_use() -> None:
    ml.use_running_loop()
    async with ml.client("demo", "memory", {"server": object()}, start=False) as client:
        tools = await client.atools()
        result = await client.aexecute_tool(tools[0], {"a": 1})
        await tools[0].aexecute({"a": 1}, on_progress=on_progress)
        await client.aon_logging(on_log)
        resources = await client.aresources()
        content = await resources[0].acontent() if resources else await client.aread_resource("demo://x")
        prompt = await client.aprompt("review")
        messages = await prompt.amessages({"code": "x"})
        chat = ml.Chat("gpt-4o-mini").with_tools(tools)
        reply = await chat.aask("hi")
        async for chunk in chat.astream("more"):
            print(chunk.content)
        print(result.text, content, messages, reply.text, await client.aping())
    async with ml.aestablish_connection({"demo": {"command": "python"}}) as group:
        print(await group.atools(), await group.aresources())
    async with ml.ClientPool("mcp.json", max_users=100, idle_timeout=60.0) as pool:
        mine: ml.ClientGroup = await pool.afor_user("alice", headers={"Authorization": "Bearer t"})
        users: list[str] = pool.users
        print(await mine.atools(), users, await pool.aevict("alice"))
        try:
            async with pool.aborrow("bob", wait_timeout=5.0) as theirs:
                print(await theirs.atools())
        except ml.PoolFullError as full:
            busy: int = full.busy
            waited: float = full.waited
            print(busy, waited, full.max_users, full.user, pool.wait_timeout)
    with ml.ClientPool({"mcpServers": {}}, max_users=None, idle_timeout=None) as sync_pool:
        print(sync_pool.for_user("bob").tools(), sync_pool.evict("bob"))
        sync_pool.close()
    await ml.ClientPool("mcp.json").aclose()


if __name__ == "__main__":
    asyncio.run(async_use())
