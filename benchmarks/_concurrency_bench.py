"""Issue 26: one shared client serving many requests at once, from one event loop and from 8 threads.

Each of ``concurrent`` requests is timed on its own, so beside the throughput (all requests' wall time)
the p99 latency of one request is compared with the raw SDK's. The raw ``mcp.Client`` can only be
used from its own loop, so for the 8-thread row its reference is 8 tasks on one loop, each making its
share of the calls one after another (the same concurrency, without threads).
"""

from __future__ import annotations

import asyncio
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

from _harness import Row, fmt_ms, interleaved, report, warmed_pair

THREADS = 8


def p99(latencies: list[float]) -> float:
    return statistics.quantiles(latencies, n=100, method="inclusive")[98]


async def bench_concurrency(transport: str, concurrent: int, reps: int) -> None:
    async with warmed_pair(transport) as (raw, ours):
        tails: dict[str, list[float]] = {}

        def timed(name: str, call: Callable[[int], Awaitable[Any]], check: Callable[[Any], int]
                  ) -> Callable[[], Awaitable[float]]:
            async def run() -> float:
                latencies: list[float] = []

                async def one(i: int) -> None:
                    start = time.perf_counter()
                    assert check(await call(i)) == i + 1  # its own answer
                    latencies.append(time.perf_counter() - start)

                start = time.perf_counter()
                await asyncio.gather(*(one(i) for i in range(concurrent)))
                tails.setdefault(name, []).append(p99(latencies))
                return time.perf_counter() - start

            return run

        raw_gather = timed("raw", lambda i: raw.call_tool("add", {"a": i, "b": 1}),
                           lambda r: int(r.structured_content["result"]))
        ours_gather = timed("ours", lambda i: ours.aexecute_tool("add", {"a": i, "b": 1}), lambda r: int(r.text))
        medians = await interleaved({"raw": raw_gather, "ours": ours_gather}, reps)
        report(Row(f"26. {transport}: {concurrent} concurrent requests, one client, one loop: time ours / raw",
                   medians["ours"] / medians["raw"], None,
                   f"[raw {fmt_ms(medians['raw'])}, ours {fmt_ms(medians['ours'])}]"))
        tail_raw, tail_ours = statistics.median(tails["raw"]), statistics.median(tails["ours"])
        report(Row(f"26. {transport}: {concurrent} concurrent requests, one client, one loop: p99 ours / raw",
                   tail_ours / tail_raw, None, f"[raw p99 {fmt_ms(tail_raw)}, ours p99 {fmt_ms(tail_ours)}]"))

        share = concurrent // THREADS
        thread_tails: dict[str, list[float]] = {}

        async def raw_tasks() -> float:
            latencies: list[float] = []

            async def worker(w: int) -> None:
                for k in range(share):
                    start = time.perf_counter()
                    result = await raw.call_tool("add", {"a": w * share + k, "b": 1})
                    assert result.structured_content["result"] == w * share + k + 1
                    latencies.append(time.perf_counter() - start)

            start = time.perf_counter()
            await asyncio.gather(*(worker(w) for w in range(THREADS)))
            thread_tails.setdefault("raw", []).append(p99(latencies))
            return time.perf_counter() - start

        async def ours_threads() -> float:
            latencies: list[float] = []
            lock = threading.Lock()

            def worker(w: int) -> None:
                for k in range(share):
                    start = time.perf_counter()
                    result = ours.execute_tool("add", {"a": w * share + k, "b": 1})
                    assert result.text == str(w * share + k + 1)
                    with lock:
                        latencies.append(time.perf_counter() - start)

            start = time.perf_counter()
            await asyncio.gather(*(asyncio.to_thread(worker, w) for w in range(THREADS)))
            thread_tails.setdefault("ours", []).append(p99(latencies))
            return time.perf_counter() - start

        medians = await interleaved({"raw": raw_tasks, "ours": ours_threads}, reps)
        report(Row(f"26. {transport}: {THREADS * share} requests from {THREADS} threads, one client: "
                   "time ours / raw (8 tasks)", medians["ours"] / medians["raw"], None,
                   f"[raw {fmt_ms(medians['raw'])}, ours {fmt_ms(medians['ours'])}]"))
        tail_raw, tail_ours = statistics.median(thread_tails["raw"]), statistics.median(thread_tails["ours"])
        report(Row(f"26. {transport}: {THREADS * share} requests from {THREADS} threads, one client: "
                   "p99 ours / raw (8 tasks)", tail_ours / tail_raw, None,
                   f"[raw p99 {fmt_ms(tail_raw)}, ours p99 {fmt_ms(tail_ours)}]"))
