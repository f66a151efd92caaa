"""Benchmarks 3 and 4: the chat's tool loop and streaming, against the same work written by hand.

The model is an OpenAI-compatible endpoint scripted with respx at the HTTP level (the helpers of
``tests/scripted_llm/respx_mock.py``), so LiteLLM's real request and response code runs on both sides. The
answers are encoded once, up front, so the mock adds as little as possible to either side.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import mcp
from _harness import STDIO_CONFIG, Row, fmt_ms, interleaved, raw_and_ours, report
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml
from tests.helpers.chat import LLM
from tests.scripted_llm.openai import Turn, completion_body, sse, stream_chunks
from tests.scripted_llm.respx_mock import API_BASE, MODEL, litellm_respx

QUESTION = "Add these five pairs of numbers."
FINAL = "The five sums are 1, 2, 3, 4 and 5."


class FakeModel:
    """Answers a question with ``first_turn`` (set by :meth:`script`), and tool results with ``FINAL``.

    Records when the request carrying the tool results arrived (the end of the tool phase).
    """

    def __init__(self, router: Any) -> None:
        self.first_turn = Turn()
        self.results_arrived: list[float] = []
        self._encoded: dict[tuple[str, bool], httpx.Response] = {}
        router.post(f"{API_BASE}/chat/completions").mock(side_effect=self._answer)

    def script(self, first_turn: Turn) -> None:
        self.first_turn = first_turn
        self._encoded.clear()

    def _answer(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        after_tools = body["messages"][-1]["role"] == "tool"
        if after_tools:
            self.results_arrived.append(time.perf_counter())
        stream = bool(body.get("stream"))
        key = ("final" if after_tools else "tools", stream)
        if key not in self._encoded:
            turn = Turn(content=FINAL) if after_tools else self.first_turn
            if stream:
                self._encoded[key] = httpx.Response(200, content=sse(stream_chunks(turn)),
                                                    headers={"content-type": "text/event-stream"})
            else:
                self._encoded[key] = httpx.Response(200, content=json.dumps(completion_body(turn)).encode(),
                                                    headers={"content-type": "application/json"})
        cached = self._encoded[key]
        return httpx.Response(cached.status_code, content=cached.content, headers=cached.headers)


def _five_adds() -> list[tuple[str, str, Any]]:
    return [(f"call_{i}", "add", {"a": i, "b": 1}) for i in range(5)]


def _litellm() -> Any:
    from mcp_litellm._llm import litellm_module

    return litellm_module()


# -- 3: one ask with five parallel tool calls -------------------------------------------------------


async def bench_chat_loop(transport: str, asks: int, reps: int, own_loop: bool = False) -> None:
    """Target 3. With ``own_loop``, ``ml.use_running_loop()`` was called: no thread hop per tool call."""
    label = f"{transport}, use_running_loop" if own_loop else transport
    raw_target, ours = raw_and_ours(transport)
    litellm = _litellm()
    with litellm_respx() as router:
        model = FakeModel(router)
        model.script(Turn(tool_calls=_five_adds()))
        async with mcp.Client(raw_target, mode="auto", cache=None) as raw:
            await ours.astart()
            try:
                chat = ml.Chat(MODEL, **LLM).with_tools(*(await ours.atools()))
                definitions = chat._tools.definitions(MODEL)  # the very same tool list on both sides

                async def by_hand_once(call: Callable[[str, str], Awaitable[str]]) -> None:
                    messages: list[dict[str, Any]] = [{"role": "user", "content": QUESTION}]
                    first = await litellm.acompletion(model=MODEL, messages=messages, tools=definitions, **LLM)
                    message = first.choices[0].message
                    calls = message.tool_calls
                    texts = await asyncio.gather(*(call(c.function.name, c.function.arguments) for c in calls))
                    messages.append({"role": "assistant", "content": message.content, "tool_calls": [
                        {"id": c.id, "type": "function",
                         "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in calls]})
                    messages += [{"role": "tool", "tool_call_id": c.id, "content": text}
                                 for c, text in zip(calls, texts, strict=True)]
                    second = await litellm.acompletion(model=MODEL, messages=messages, tools=definitions, **LLM)
                    assert texts == ["1", "2", "3", "4", "5"], texts
                    assert second.choices[0].message.content == FINAL

                async def raw_call(name: str, arguments: str) -> str:
                    result = await raw.call_tool(name, json.loads(arguments))
                    return str(result.content[0].text)  # type: ignore[union-attr]

                async def by_hand() -> float:
                    start = time.perf_counter()
                    for _ in range(asks):
                        await by_hand_once(raw_call)
                    return time.perf_counter() - start

                async def ours_ask() -> float:
                    start = time.perf_counter()
                    for _ in range(asks):
                        chat.reset()
                        reply = await chat.aask(QUESTION)
                        assert reply.content == FINAL
                        assert [m["content"] for m in chat.messages if m["role"] == "tool"] == ["1", "2", "3", "4", "5"]
                    return time.perf_counter() - start

                async def our_call(name: str, arguments: str) -> str:
                    return (await ours.aexecute_tool(name, json.loads(arguments))).text

                async def by_hand_with_our_client() -> float:
                    start = time.perf_counter()
                    for _ in range(asks):
                        await by_hand_once(our_call)
                    return time.perf_counter() - start

                variants = {"hand": by_hand, "ours": ours_ask, "hand_ours": by_hand_with_our_client}
                peer = _litellm_helper_call(raw)
                if peer is not None:
                    async def with_litellm_helpers() -> float:
                        start = time.perf_counter()
                        for _ in range(asks):
                            await by_hand_once(peer)
                        return time.perf_counter() - start

                    variants["helpers"] = with_litellm_helpers
                for variant in variants.values():  # warm up: connections, caches, LiteLLM's first-call work
                    await variant()
                medians = await interleaved(variants, reps)
                per_ask = {name: median / asks for name, median in medians.items()}
                report(Row(f"3. {label}: ask with 5 parallel tool calls, Chat.aask / by hand "
                           f"(5 call_tool + 2 acompletion)", medians["ours"] / medians["hand"], 1.10,
                           f"[by hand {fmt_ms(per_ask['hand'])}, ours {fmt_ms(per_ask['ours'])} per ask]"))
                report(Row(f"3. {label}: diagnostic, the loop by hand with our aexecute_tool / by hand",
                           medians["hand_ours"] / medians["hand"], None,
                           f"[{fmt_ms(per_ask['hand_ours'])} per ask; Chat.aask / it: "
                           f"{medians['ours'] / medians['hand_ours']:.3f}x = the chat's own share]"))
                if "helpers" in medians:
                    report(Row(f"8. {label}: the same loop by hand with litellm's call_openai_tool / with "
                               "raw call_tool", medians["helpers"] / medians["hand"], None,
                               f"[{fmt_ms(per_ask['helpers'])} per ask; Chat.aask / it: "
                               f"{medians['ours'] / medians['helpers']:.3f}x]"))
            finally:
                await ours.astop()


def _litellm_helper_call(raw: Any) -> Callable[[str, str], Awaitable[str]] | None:
    """A tool caller built on ``litellm.experimental_mcp_client.call_openai_tool``, or None without it."""
    try:
        from litellm.experimental_mcp_client import call_openai_tool
    except ImportError:
        return None

    async def call(name: str, arguments: str) -> str:
        result = await call_openai_tool(raw.session, {"id": "x", "type": "function",
                                                      "function": {"name": name, "arguments": arguments}})
        return str(result.content[0].text)

    return call


def sleeper_server(count: int) -> MCPServer:
    """An in-memory server with ``count`` distinct tools that each sleep for the given seconds."""
    server = MCPServer("sleepers")
    for index in range(count):
        async def sleep(seconds: float) -> str:
            await asyncio.sleep(seconds)
            return "slept"

        server.tool(name=f"sleep_{index}", description="Sleep for a while.")(sleep)
    return server


async def bench_tool_phase(reps: int) -> None:
    """Five tool calls that each take 0.5 s, in one model turn: the tool phase must take < 0.75 s."""
    setups = {
        "stdio, 5 x fixture tool wait(0.5)": (ml.client("slow", "stdio", STDIO_CONFIG, start=False),
                                               [(f"call_{i}", "wait", {"seconds": 0.5}) for i in range(5)]),
        "memory, 5 tools sleeping 0.5 s": (ml.client("sleepers", "memory", {"server": sleeper_server(5)}, start=False),
                                          [(f"call_{i}", f"sleep_{i}", {"seconds": 0.5}) for i in range(5)]),
    }
    with litellm_respx() as router:
        model = FakeModel(router)
        for label, (client, calls) in setups.items():
            model.script(Turn(tool_calls=calls))
            await client.astart()
            try:
                chat = ml.Chat(MODEL, **LLM).with_tools(*(await client.atools()))
                answered: list[float] = []

                def model_answered(message: ml.Message, answered: list[float] = answered) -> None:
                    if message.tool_calls:
                        answered.append(time.perf_counter())

                chat.on_new_message(model_answered)
                phases = []
                for _ in range(reps):
                    chat.reset()
                    answered.clear()
                    model.results_arrived.clear()
                    await chat.aask(QUESTION)
                    tool_answers = [m["content"] for m in chat.messages if m["role"] == "tool"]
                    assert tool_answers and not any(a.startswith("Error") for a in tool_answers), tool_answers
                    phases.append(model.results_arrived[0] - answered[0])
                phases.sort()
                median = phases[len(phases) // 2]
                report(Row(f"3. tool phase, {label}", median, 0.75,
                           f"(s, model answer complete -> results sent back; median of {reps})", " s"))
            finally:
                await client.astop()


# -- 4: streaming, time to the first text chunk -----------------------------------------------------


async def bench_first_chunk(firsts: int, reps: int) -> None:
    litellm = _litellm()
    with litellm_respx() as router:
        FakeModel(router).script(Turn(content=FINAL))  # streamed word by word (see stream_chunks)
        chat = ml.Chat(MODEL, **LLM)

        async def ours() -> float:
            total = 0.0
            for _ in range(firsts):
                chat.reset()
                start = time.perf_counter()
                chunks = chat.astream(QUESTION)
                async for chunk in chunks:
                    if chunk.content:
                        total += time.perf_counter() - start
                        break
                text = chunk.content + "".join([c.content async for c in chunks])
                assert text == FINAL, text
            return total

        async def raw() -> float:
            total = 0.0
            for _ in range(firsts):
                start = time.perf_counter()
                response = await litellm.acompletion(model=MODEL, messages=[{"role": "user", "content": QUESTION}],
                                                     stream=True, **LLM)
                async for part in response:
                    if part.choices[0].delta.content:
                        total += time.perf_counter() - start
                        break
                text = part.choices[0].delta.content + "".join(
                    [p.choices[0].delta.content or "" async for p in response])
                assert text == FINAL, text
            return total

        await ours()
        await raw()
        medians = await interleaved({"raw": raw, "ours": ours}, reps)
        report(Row("4. time to first text chunk, Chat.astream / litellm.acompletion(stream=True)",
                   medians["ours"] / medians["raw"], 1.05,
                   f"[raw {medians['raw'] / firsts * 1e3:.2f} ms, ours {medians['ours'] / firsts * 1e3:.2f} ms]"))
