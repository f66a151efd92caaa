"""Code mode benchmarks: prompt tokens and model rounds per scripted task, plain tool loop vs code mode,
and the sandbox's own overhead.

Run from the repository root (needs the ``code`` extra)::

    python benchmarks/code_mode.py            # everything (about half a minute)
    python benchmarks/code_mode.py --only tokens
    python benchmarks/code_mode.py --only overhead --reps 7

Counts and ratios, not timed tests. The model is scripted at the HTTP level (``tests/scripted_llm/respx_mock.py``),
so LiteLLM's real request code runs, and the prompt tokens counted are those of the request bodies
actually sent (messages and tool definitions, ``litellm.token_counter`` for ``gpt-4o-mini``). Both
variants of a task run against the same in-process MCP servers, with the same scripted reasoning: the
plain loop makes one model round per dependent step; code mode writes the steps as one program.

Tasks:

- ten-step: ten dependent ``add`` calls (each needs the previous sum), over the fixture server's tools;
  also over ``add`` alone (the plain loop's best case: one small definition per request);
- big result: a 50,000-character log (a local tool) whose lines must be counted, then one more call;
- catalog: the 500-tool catalog (tool search on): find a tool, call it, find another, call it with the
  first one's answer.

Overhead: one run of an empty program (a fresh sandbox worker), and per inner call: a program making 50
sequential ``add`` calls against 50 direct calls through the same single-call path (``call_tool``), medians
over ``--reps`` repetitions, alternating.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp_litellm as ml  # noqa: E402
from mcp_litellm._chat.code_mode import CodeMode, CodeModeToolset  # noqa: E402
from mcp_litellm._chat.message import ToolCall  # noqa: E402
from mcp_litellm._client.primitives.toolset import CallContext  # noqa: E402
from mcp_litellm._llm import litellm_module  # noqa: E402
from tests.helpers.chat import LLM  # noqa: E402
from tests.scripted_llm.openai import Turn  # noqa: E402
from tests.scripted_llm.respx_mock import ScriptedLLM, litellm_respx  # noqa: E402
from tests.servers import catalog_server, fixture_server  # noqa: E402

MODEL = "openai/gpt-4o-mini"
COUNTER = "gpt-4o-mini"
WORDS = ["request", "served", "user", "checkout", "payment", "cache", "miss", "retry", "timeout", "database", "query",
         "slow", "index", "shard", "replica", "warning", "error", "info", "debug", "latency", "p99", "upstream",
         "gateway", "invoice", "order", "shipped"]


def log_text(chars: int = 50_000) -> str:
    """A realistic-looking log of ``chars`` characters (words, numbers, one line per entry)."""
    lines, size, i = [], 0, 0
    while size < chars:
        line = (f"2026-11-27T06:{i % 60:02d}:{(i * 7) % 60:02d}Z {WORDS[i % len(WORDS)].upper()} "
                f"{' '.join(WORDS[(i * 3 + k) % len(WORDS)] for k in range(8))} id={i * 7919 % 100_000}")
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines)[:chars]


def read_log() -> str:
    """Read today's service log."""
    return log_text()


@dataclass
class Figures:
    requests: int
    rounds: int  # model requests that asked for tools
    prompt_tokens: int


def measure(requests: list[dict[str, Any]]) -> Figures:
    litellm = litellm_module()
    tokens = sum(int(litellm.token_counter(model=COUNTER, messages=r["messages"], tools=r.get("tools") or None))
                 for r in requests)
    return Figures(len(requests), len(requests) - 1, tokens)


def scripted(tools: list[Any], turns: list[Turn], question: str, *, expect: str | None = None,
             **chat_options: Any) -> Figures:
    """Run the scripted turns; ``expect``: a text the last tool message must hold (what the tools computed)."""
    with litellm_respx() as router:
        llm = ScriptedLLM(router).then(*turns)
        chat = ml.Chat(MODEL, **{**LLM, **chat_options}).with_tools(*tools)
        chat.ask(question)
        assert not llm.script, "the chat did not use every scripted turn"
        assert all(m.get("content") != "the script has no more turns" for m in chat.messages)
        if expect is not None:
            last = [m for m in chat.messages if m["role"] == "tool"][-1]["content"]
            assert expect in last, f"expected {expect!r} in the last tool result, got {last[:200]!r}"
        return measure(llm.requests)


def ten_step(tools: list[Any]) -> tuple[Figures, Figures]:
    plain, total = [], 0
    for i in range(1, 11):
        plain.append(Turn(tool_calls=[(f"c{i}", "add", {"a": total, "b": i})]))
        total += i
    plain.append(Turn(content=f"The total is {total}."))
    code = "x = 0\nfor i in range(1, 11):\n    x = await add(a=x, b=i)\nx"
    coded = [Turn(tool_calls=[("c1", "run_code", {"code": code})]), Turn(content=f"The total is {total}.")]
    question = "Add 1, 2, ..., 10 one at a time with the add tool, starting from 0."
    return scripted(tools, plain, question), scripted(tools, coded, question, code_mode=True)


def big_result(tools: list[Any], **options: Any) -> tuple[Figures, Figures]:
    lines = log_text().count("ERROR")
    plain = [Turn(tool_calls=[("c1", "read_log", {})]),
             Turn(tool_calls=[("c2", "echo", {"message": f"{lines} error lines"})]),
             Turn(content=f"{lines} error lines, reported.")]
    code = "log = await read_log()\nn = log.count('ERROR')\nawait echo(message=f'{n} error lines')"
    coded = [Turn(tool_calls=[("c1", "run_code", {"code": code})]), Turn(content=f"{lines} error lines, reported.")]
    question = "Count the ERROR lines in today's log and report the count with echo."
    # the program must count the whole log (a tool's result reaches it uncut), whatever the result budget
    expect = f"{lines} error lines"
    return (scripted(tools, plain, question, **options),
            scripted(tools, coded, question, expect=expect, code_mode=True, **options))


def catalog(tools: list[Any]) -> tuple[Figures, Figures]:
    plain = [Turn(tool_calls=[("c1", "search_tools", {"query": "schedule a meeting"})]),
             Turn(tool_calls=[("c2", "calendar_create_event", {"title": "Review", "start_time": "10:00"})]),
             Turn(tool_calls=[("c3", "search_tools", {"query": "remind me before an event"})]),
             Turn(tool_calls=[("c4", "calendar_create_reminder", {"event_id": "evt-1", "minutes_before": "15"})]),
             Turn(content="Booked, with a reminder.")]
    code = ("print(await search_tools('schedule a meeting'))\n"
            "print(await search_tools('remind me before an event'))\n"
            "made = await calendar_create_event(title='Review', start_time='10:00')\n"
            "await calendar_create_reminder(event_id='evt-1', minutes_before='15')")
    # a model writing code still looks before it calls: one run to search, one to act
    coded = [Turn(tool_calls=[("c1", "run_code", {"code": code.split("made")[0]})]),
             Turn(tool_calls=[("c2", "run_code", {"code": "made" + code.split("made")[1]})]),
             Turn(content="Booked, with a reminder.")]
    question = "Book a review meeting at 10:00 and remind me 15 minutes before."
    return scripted(tools, plain, question), scripted(tools, coded, question, code_mode=True)


def tokens_table() -> None:
    fixture = ml.client("fixture", "memory", {"server": fixture_server.build_server()})
    big = ml.client("catalog", "memory", {"server": catalog_server.build_server()})
    try:
        rows = [
            ("ten-step, fixture server's tools", ten_step(fixture.tools())),
            ("ten-step, add alone", ten_step([fixture.tool("add")])),
            ("50,000-char intermediate result", big_result([*fixture.tools(), read_log])),
            ("500-tool catalog with search", catalog(big.tools())),
        ]
        # under a result budget far below the log's size the program still counts the whole log (checked in
        # big_result); the plain loop's model would have to page through it with read_result (not scripted)
        small = big_result([*fixture.tools(), read_log], result_budget=2_000)[1]
    finally:
        fixture.stop()
        big.stop()
    header = f"{'task':36} {'plain: requests/rounds/tokens':>30} {'code: requests/rounds/tokens':>30}"
    print(f"{header} {'tokens saved':>13}")
    for name, (plain, code) in rows:
        saved = 1 - code.prompt_tokens / plain.prompt_tokens
        print(f"{name:36} {plain.requests:>12} / {plain.rounds:>2} / {plain.prompt_tokens:>8,} "
              f"{code.requests:>12} / {code.rounds:>2} / {code.prompt_tokens:>8,} {saved:>12.1%}")
    print(f"code mode, the 50,000-char log under result_budget=2,000: counted whole, {small.requests} requests, "
          f"{small.prompt_tokens:,} tokens")


async def overhead(reps: int) -> None:
    client = ml.client("fixture", "memory", {"server": fixture_server.build_server()})
    try:
        chat = ml.Chat(MODEL, **LLM, code_mode=True).with_tools(*(await client.atools()))
        tools = chat._chat_tools
        toolbox = tools.box

        async def inner(call: ToolCall, ctx: CallContext) -> Any:  # the toolbox's call_tool, without hooks
            return await toolbox.call_tool(call.name, json.loads(call.arguments), ctx)

        engine = CodeModeToolset(CodeMode(), toolbox, tools.names, tools.search, model=lambda: MODEL,
                                 run_inner=inner)

        async def program(code: str) -> float:
            started = time.perf_counter()
            result = await engine.run("run_code", code, CallContext(origin="model", tool_call_id="run"))
            elapsed = time.perf_counter() - started
            assert not result.is_error, result.text
            return elapsed

        async def direct(n: int) -> float:
            started = time.perf_counter()
            x = 0
            for i in range(n):
                result = await toolbox.call_tool("add", {"a": x, "b": 1}, CallContext(origin="model",
                                                                                     tool_call_id=f"d{i}"))
                x = int(result.text)
            assert x == n
            return time.perf_counter() - started

        calls = 50
        loop = f"x = 0\nfor i in range({calls}):\n    x = await add(a=x, b=1)\nassert x == {calls}\nx"
        empty, coded, plain = [], [], []
        await program("1")  # warm-up
        await direct(5)
        for rep in range(reps):
            order = [("empty", "1"), ("code", loop), ("direct", "")]
            for kind, code in (order if rep % 2 == 0 else order[::-1]):
                if kind == "direct":
                    plain.append(await direct(calls))
                else:
                    (empty if kind == "empty" else coded).append(await program(code))
        run = statistics.median(empty)
        per_inner = (statistics.median(coded) - run) / calls
        per_direct = statistics.median(plain) / calls
        print(f"sandbox run of an empty program (fresh worker): {run * 1000:.1f} ms (median of {reps})")
        print(f"per inner call, in code: {per_inner * 1000:.2f} ms; direct call_tool: {per_direct * 1000:.2f} ms; "
              f"overhead per call: {(per_inner - per_direct) * 1000:+.2f} ms ({per_inner / per_direct:.2f}x)")
    finally:
        await client.astop() if hasattr(client, "astop") else client.stop()


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["tokens", "overhead"])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    if args.only in (None, "tokens"):
        tokens_table()
    if args.only in (None, "overhead"):
        asyncio.run(overhead(args.reps))


if __name__ == "__main__":
    main()
