"""Issue 25: cost that stays flat under load.

- 1,000 concurrent calls through one client (stdio, its session on this loop): the cost per call at
  1,000 in flight against the cost per call one at a time (target: within 1.5x), the raw SDK's same
  ratio beside it, and the memory the 1,000 calls in flight take (tracemalloc peak, and what is left).
- An idle client: the CPU time this process spends over a few idle seconds with clients connected
  (one on this loop, one on the background loop; no polling means next to none), and their memory.
- Group start: 20 Python stdio servers (the fixture server) started by one ``ClientGroup`` at once,
  against the same 20 started one after another.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import tracemalloc
from typing import Any

from _harness import FIXTURE, STDIO_CONFIG, Row, fmt_ms, interleaved, report, warmed_pair

import mcp_litellm as ml

IDLE_SECONDS = 3.0


async def bench_in_flight(calls: int, reps: int) -> None:
    async with warmed_pair("stdio") as (raw, ours):

        async def ours_one() -> float:
            start = time.perf_counter()
            for i in range(calls):
                result = await ours.aexecute_tool("add", {"a": i, "b": 1})
            assert result.text == str(calls)
            return time.perf_counter() - start

        async def ours_many() -> float:
            start = time.perf_counter()
            results = await asyncio.gather(*(ours.aexecute_tool("add", {"a": i, "b": 1}) for i in range(calls)))
            elapsed = time.perf_counter() - start
            assert [r.text for r in results] == [str(i + 1) for i in range(calls)]
            return elapsed

        async def raw_one() -> float:
            start = time.perf_counter()
            for i in range(calls):
                result = await raw.call_tool("add", {"a": i, "b": 1})
            assert result.structured_content == {"result": calls}
            return time.perf_counter() - start

        async def raw_many() -> float:
            start = time.perf_counter()
            results = await asyncio.gather(*(raw.call_tool("add", {"a": i, "b": 1}) for i in range(calls)))
            elapsed = time.perf_counter() - start
            assert [r.structured_content["result"] for r in results] == [i + 1 for i in range(calls)]
            return elapsed

        medians = await interleaved({"ours_one": ours_one, "ours_many": ours_many, "raw_one": raw_one,
                                     "raw_many": raw_many}, reps)
        per = {name: value / calls * 1e6 for name, value in medians.items()}
        report(Row(f"25. stdio: per-call cost with {calls} in flight / one in flight (ours, one client)",
                   medians["ours_many"] / medians["ours_one"], 1.5,
                   f"[{per['ours_many']:.0f} us vs {per['ours_one']:.0f} us per call]"))
        report(Row("25. stdio: the same for the raw SDK (reference, same run)",
                   medians["raw_many"] / medians["raw_one"], None,
                   f"[{per['raw_many']:.0f} us vs {per['raw_one']:.0f} us per call]"))

        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        await ours_many()
        gc.collect()
        first = tracemalloc.get_traced_memory()[0]
        for _ in range(4):
            await ours_many()
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        report(Row(f"25. stdio: memory of {calls} calls in flight on one client (tracemalloc peak)",
                   (peak - before) / 2**20, None,
                   f"[{(peak - before) / calls / 1024:.1f} KiB per call in flight; held after the first round "
                   f"{(first - before) / 1024:.0f} KiB, after 4 more {(after - before) / 1024:.0f} KiB]", " MiB"))


async def bench_idle() -> None:
    """CPU this process spends while clients sit connected and unused, and what a connected client holds."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    here = await ml.client("idle-here", "stdio", STDIO_CONFIG, start=False).astart()
    await here.aexecute_tool("add", {"a": 1, "b": 2})
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    background = await asyncio.to_thread(ml.client, "idle-background", "stdio", STDIO_CONFIG)
    await asyncio.to_thread(background.execute_tool, "add", {"a": 1, "b": 2})
    try:
        await asyncio.sleep(0.5)  # let the start-up settle
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(IDLE_SECONDS)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        report(Row(f"25. idle: CPU of this process over {IDLE_SECONDS:g} s with two connected stdio clients "
                   "(this loop, background loop)", cpu * 1000 / wall, None,
                   f"[{cpu * 1000:.1f} ms of CPU in {wall:.1f} s]", " ms/s"))
        report(Row("25. idle: memory one connected stdio client holds (tracemalloc, after its first call)",
                   held / 1024, None, "", " KiB"))
    finally:
        await here.astop()
        await asyncio.to_thread(background.stop)


async def bench_group_start(count: int) -> None:
    config: dict[str, Any] = {"command": sys.executable, "args": [str(FIXTURE)]}

    async def together() -> float:
        group = ml.ClientGroup({"mcpServers": {f"s{i}": config for i in range(count)}})
        start = time.perf_counter()
        await group.astart()
        elapsed = time.perf_counter() - start
        assert len(group) == count and all(c.is_alive() for c in group)
        await group.astop()
        return elapsed

    async def one_after_another() -> float:
        clients = [ml.client(f"s{i}", "stdio", config, start=False) for i in range(count)]
        start = time.perf_counter()
        for client in clients:
            await client.astart()
        elapsed = time.perf_counter() - start
        await asyncio.gather(*(c.astop() for c in clients))
        return elapsed

    medians = await interleaved({"together": together, "sequential": one_after_another}, 1)
    report(Row(f"25. group start of {count} Python stdio servers: concurrent / one after another",
               medians["together"] / medians["sequential"], None,
               f"[concurrent {fmt_ms(medians['together'])}, one after another {fmt_ms(medians['sequential'])}]"))


async def bench_load(quick: bool, reps: int) -> None:
    await bench_in_flight(1000, 3 if quick else reps)
    await bench_idle()
    await bench_group_start(10 if quick else 20)
