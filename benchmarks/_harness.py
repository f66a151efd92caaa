"""What every benchmark shares: result rows, the printed table, and interleaved repetitions."""

from __future__ import annotations

import gc
import statistics
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "servers" / "fixture_server.py"
SERVER_ENV = {"PYTHONHASHSEED": "0"}
"""Every fixture server process hashes alike: with random hash seeds, two processes of one server differ in
speed by a few percent (their dicts and sets are laid out differently), and the variant that got the
slower process looked slower (pyperf's reason for many worker processes)."""
STDIO_CONFIG = {"command": sys.executable, "args": [str(FIXTURE)], "env": SERVER_ENV}


def raw_and_ours(transport: str) -> tuple[Any, Any]:
    """The fixture server as a raw ``mcp.Client`` target, and an unstarted client of ours for the same server."""
    # Imported here: the rest of this module is stdlib-only, so peer_langchain.py can use it in a venv
    # without mcp_litellm.
    from mcp import StdioServerParameters

    import mcp_litellm as ml
    from tests.servers.fixture_server import build_server

    if transport == "stdio":
        return StdioServerParameters(command=sys.executable, args=[str(FIXTURE)], env=SERVER_ENV), ml.client(
            "bench", "stdio", STDIO_CONFIG, start=False)
    return build_server(), ml.client("bench", "memory", {"server": build_server()}, start=False)



@asynccontextmanager
async def warmed_pair(transport: str) -> AsyncIterator[tuple[Any, Any]]:
    """The raw SDK client and ours over ``transport``, both connected and warmed up by 20 calls each."""
    import mcp

    raw_target, ours = raw_and_ours(transport)
    async with mcp.Client(raw_target, mode="auto", cache=None) as raw:
        await ours.astart()
        try:
            for _ in range(20):
                await raw.call_tool("add", {"a": 1, "b": 2})
                await ours.aexecute_tool("add", {"a": 1, "b": 2})
            yield raw, ours
        finally:
            await ours.astop()

@dataclass
class Row:
    name: str
    value: float | None  # a ratio, or a plain figure when ``target`` is None
    target: float | None
    detail: str
    unit: str = "x"

    def verdict(self) -> str:
        if self.target is None or self.value is None:
            return "info"
        return "PASS" if self.value <= self.target else "MISS"


ROWS: list[Row] = []


def report(row: Row) -> None:
    ROWS.append(row)
    value = "n/a" if row.value is None else f"{row.value:.3f}{row.unit}"
    print(f"  {row.name}: {value} ({row.verdict()}) {row.detail}", flush=True)


async def interleaved_samples(variants: dict[str, Callable[[], Awaitable[float]]], reps: int, *,
                              gc_off: bool = False) -> dict[str, list[float]]:
    """Run each variant once per repetition, alternating the order; return every variant's timings.

    ``gc_off``: the cyclic garbage collector is paused while a sample runs (and collects between
    samples), as ``timeit`` does: with LiteLLM's large heap loaded, one full collection takes tens of
    milliseconds, and the block it lands in, whichever variant it is, is then off by that much."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for rep in range(reps):
        for name in names if rep % 2 == 0 else reversed(names):
            gc.collect()
            if gc_off:
                gc.disable()
            try:
                samples[name].append(await variants[name]())
            finally:
                gc.enable()
    return samples


async def interleaved(variants: dict[str, Callable[[], Awaitable[float]]], reps: int) -> dict[str, float]:
    """Run each variant once per repetition, alternating the order; return the median of each."""
    samples = await interleaved_samples(variants, reps)
    return {name: statistics.median(values) for name, values in samples.items()}


def paired_ratio(samples: dict[str, list[float]], ours: str, base: str) -> tuple[float, float, float]:
    """The median, lowest and highest of ``ours / base`` taken block by block (the two ran side by side in
    each repetition, so a slow moment of the machine weighs on both sides of one ratio, not on one median)."""
    ratios = sorted(a / b for a, b in zip(samples[ours], samples[base], strict=True))
    return statistics.median(ratios), ratios[0], ratios[-1]


def fmt_ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def print_table() -> None:
    width = max(len(r.name) for r in ROWS)
    print()
    print(f"{'benchmark':<{width}}  {'measured':>12}  {'target':>8}  result")
    print("-" * (width + 34))
    for r in ROWS:
        value = "n/a" if r.value is None else f"{r.value:.3f}{r.unit}"
        target = "" if r.target is None else f"<= {r.target:g}"
        print(f"{r.name:<{width}}  {value:>12}  {target:>8}  {r.verdict()}")
    for r in ROWS:
        if r.value is None:
            print(f"\n{r.name}: {r.detail}")
