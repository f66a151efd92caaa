"""Benchmarks of mcp_litellm against the raw mcp SDK, printed as one table of side-by-side ratios.

Run from the repository root::

    python benchmarks/run.py                      # full run (about 5 minutes on 2 cores)
    python benchmarks/run.py --quick              # smaller N and fewer repetitions (about 1.5 minutes)
    python benchmarks/run.py --only chat,stream   # some groups only (see --help)

Every ratio is measured in one process, in one run: the variants being compared alternate within each
repetition (their order flips every repetition), and the ratio is median(ours) / median(reference),
so machine noise affects both sides alike. Nothing here is a unit test; see benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp  # noqa: E402
from _harness import (  # noqa: E402
    FIXTURE,
    ROWS,
    SERVER_ENV,
    Row,
    fmt_ms,
    interleaved,
    interleaved_samples,
    paired_ratio,
    print_table,
    raw_and_ours,
    report,
)
from mcp import StdioServerParameters  # noqa: E402

import mcp_litellm as ml  # noqa: E402
from tests.servers.fixture_server import build_server  # noqa: E402

ARGS = {"a": 1, "b": 2}
CALL_BLOCKS = 3  # the sequential-call figures: each repetition as this many shorter blocks
GROUPS = ("calls", "own-loop", "chat", "stream", "startup", "conversion", "memory", "throughput", "peers",
          "concurrency", "load")


# -- 1 and 2: tool-call overhead and concurrency against the raw SDK --------------------------------


async def bench_calls(transport: str, n: int, reps: int, concurrent: int, own_loop: bool = False) -> None:
    """Targets 1 and 2, and fastmcp's client beside them (stdio, when installed: the ``bench`` extra).

    ``ours`` is started here, from async code, so its session lives on this loop (the default since
    issue 25); the sync figure is a second client started from a plain thread, as a sync program
    starts it (its session lives on the background loop). With ``own_loop``, ``ml.use_running_loop()``
    was called first, so that client's session lives on this loop too (its sync calls cross to it).
    """
    label = f"{transport}, use_running_loop" if own_loop else transport
    block = n // CALL_BLOCKS
    raw_target, ours = raw_and_ours(transport)
    _, ours_sync_client = raw_and_ours(transport)
    fast = fastmcp_client() if transport == "stdio" else None
    # The same negotiation mode on both sides; the raw client without its response cache, like ours.
    async with mcp.Client(raw_target, mode="auto", cache=None) as raw:
        await ours.astart()
        await asyncio.to_thread(ours_sync_client.start)
        if fast is not None:
            await fast.__aenter__()
        try:
            for _ in range(20):  # warm up every side (our first call also lists the tools once)
                await raw.call_tool("add", ARGS)
                await ours.aexecute_tool("add", ARGS)
                await asyncio.to_thread(ours_sync_client.execute_tool, "add", ARGS)
                if fast is not None:
                    await fast.call_tool("add", ARGS)

            async def raw_seq() -> float:
                start = time.perf_counter()
                for _ in range(block):
                    result = await raw.call_tool("add", ARGS)
                assert result.structured_content == {"result": 3}
                return time.perf_counter() - start

            async def raw_session_seq() -> float:
                # The issue names ClientSession.call_tool: the session under mcp.Client, without the
                # Client's wrapper (input-required rounds, re-list on HEADER_MISMATCH).
                start = time.perf_counter()
                for _ in range(block):
                    result = await raw.session.call_tool("add", ARGS)
                assert result.structured_content == {"result": 3}
                return time.perf_counter() - start

            async def ours_async() -> float:
                start = time.perf_counter()
                for _ in range(block):
                    result = await ours.aexecute_tool("add", ARGS)
                assert result.text == "3"
                return time.perf_counter() - start

            async def ours_sync() -> float:
                # Blocking calls from a plain thread: the way sync users call us.
                def run() -> float:
                    start = time.perf_counter()
                    for _ in range(block):
                        result = ours_sync_client.execute_tool("add", ARGS)
                    assert result.text == "3"
                    return time.perf_counter() - start

                return await asyncio.to_thread(run)

            async def fastmcp_seq() -> float:
                assert fast is not None
                start = time.perf_counter()
                for _ in range(block):
                    result = await fast.call_tool("add", ARGS)
                assert result.structured_content == {"result": 3}
                return time.perf_counter() - start

            variants = {"raw": raw_seq, "session": raw_session_seq, "async": ours_async, "sync": ours_sync}
            if fast is not None:
                variants["fastmcp"] = fastmcp_seq
            # Many short blocks, each variant once per block: a ratio per block, and their median.
            samples = await interleaved_samples(variants, reps * CALL_BLOCKS, gc_off=True)
            medians = {name: statistics.median(values) * CALL_BLOCKS for name, values in samples.items()}

            def row(what: str, ours_name: str, base: str, target: float | None, detail: str) -> None:
                ratio, low, high = paired_ratio(samples, ours_name, base)
                report(Row(f"1. {label}: {n} sequential calls, {what}", ratio, target,
                           f"[{detail}; {len(samples[base])} blocks of {n // CALL_BLOCKS}, per-block ratio "
                           f"{low:.2f}-{high:.2f}]"))

            per_call = f"raw {medians['raw'] / n * 1e6:.0f} us/call"
            row("aexecute_tool / raw mcp.Client.call_tool", "async", "raw", 1.10,
                f"{per_call}, ours {medians['async'] / n * 1e6:.0f} us/call")
            row("execute_tool (sync) / raw mcp.Client.call_tool", "sync", "raw", 1.30,
                f"{per_call}, ours {medians['sync'] / n * 1e6:.0f} us/call")
            per_session = f"ClientSession {medians['session'] / n * 1e6:.0f} us/call"
            row("aexecute_tool / raw ClientSession.call_tool", "async", "session", 1.10, per_session)
            row("execute_tool (sync) / raw ClientSession.call_tool", "sync", "session", 1.30, per_session)
            if fast is not None:
                row("fastmcp Client.call_tool / raw mcp.Client.call_tool", "fastmcp", "raw", None,
                    f"fastmcp {version('fastmcp-slim')} {medians['fastmcp'] / n * 1e6:.0f} us/call")
                row("aexecute_tool / fastmcp Client.call_tool (same run)", "async", "fastmcp", 1.0, "")
            elif transport == "stdio":
                report(Row(f"1. {label}: fastmcp peer", None, None,
                           "not run: fastmcp is not installed (pip install -e '.[bench]')"))

            async def raw_many() -> float:
                start = time.perf_counter()
                results = await asyncio.gather(*(raw.call_tool("add", {"a": i, "b": 1}) for i in range(concurrent)))
                elapsed = time.perf_counter() - start
                assert [r.structured_content["result"] for r in results] == [i + 1 for i in range(concurrent)]
                return elapsed

            async def ours_many() -> float:
                start = time.perf_counter()
                results = await asyncio.gather(*(ours.aexecute_tool("add", {"a": i, "b": 1})
                                                 for i in range(concurrent)))
                elapsed = time.perf_counter() - start
                assert [r.text for r in results] == [str(i + 1) for i in range(concurrent)]
                return elapsed

            medians = await interleaved({"raw": raw_many, "ours": ours_many}, reps)
            report(Row(f"2. {label}: {concurrent} concurrent calls on one client, ours / raw",
                       medians["ours"] / medians["raw"], 1.15,
                       f"[raw {fmt_ms(medians['raw'])}, ours {fmt_ms(medians['ours'])}; all results checked]"))
        finally:
            if fast is not None:
                await fast.__aexit__(None, None, None)
            await asyncio.to_thread(ours_sync_client.stop)
            await ours.astop()


def fastmcp_client() -> Any:
    """fastmcp's ``Client`` for the fixture server over stdio (negotiating as ours does, without a
    response cache), or None when fastmcp is not installed."""
    try:
        from fastmcp import Client
        from fastmcp.client.transports import StdioTransport
    except ImportError:
        return None
    return Client(StdioTransport(command=sys.executable, args=[str(FIXTURE)], env=SERVER_ENV), mode="auto",
                  cache=None)


# -- 5: startup ------------------------------------------------------------------------------------

_IMPORT_PROBE = (
    "import sys, time; t = time.perf_counter(); import {module}; d = time.perf_counter() - t; "
    "print(d, 'litellm' in sys.modules)"
)


def import_time(module: str) -> tuple[float, bool]:
    out = subprocess.run([sys.executable, "-c", _IMPORT_PROBE.format(module=module)], capture_output=True,
                         text=True, check=True, cwd=ROOT).stdout.split()
    return float(out[0]), out[1] == "True"


async def bench_import(reps: int) -> None:
    litellm_seen: list[bool] = []

    async def ours() -> float:
        seconds, loaded = import_time("mcp_litellm")
        litellm_seen.append(loaded)
        return seconds

    async def raw() -> float:
        return import_time("mcp")[0]

    medians = await interleaved({"raw": raw, "ours": ours}, reps)
    report(Row("5. import mcp_litellm / import mcp (fresh subprocesses)", medians["ours"] / medians["raw"], 1.2,
               f"[mcp {fmt_ms(medians['raw'])}, mcp_litellm {fmt_ms(medians['ours'])}; "
               f"litellm in sys.modules after import: {any(litellm_seen)}]"))
    if any(litellm_seen):
        report(Row("5. import mcp_litellm must not import litellm", None, None, "FAILED: litellm was imported"))


TINY_SERVER = Path(__file__).resolve().parent / "_tiny_server.py"


async def bench_connect(reps: int, group: int) -> None:
    """Target 5: connecting ``group`` servers at once vs one, ours and the raw SDK's, on two kinds of server.

    The fixture server spends ~0.6 s of CPU importing ``mcp``, so on few cores its start-ups queue for
    the CPU whatever the client does; the tiny server spends its start-up waiting (``--delay 0.5``), so
    it shows whether the client starts servers concurrently (ratio near 1) or one after another (near 5).
    """
    servers = {
        "fixture": [str(FIXTURE)],
        "tiny, 0.5 s start-up": [str(TINY_SERVER), "--delay", "0.5"],
    }
    for label, args in servers.items():
        config = {"command": sys.executable, "args": args}

        async def connect_ours(count: int, config: dict[str, Any] = config) -> float:
            group = ml.ClientGroup({"mcpServers": {f"s{i}": config for i in range(count)}})
            start = time.perf_counter()
            await group.astart()
            elapsed = time.perf_counter() - start
            assert len(list(group)) == count
            await group.astop()
            return elapsed

        async def connect_raw(count: int, args: list[str] = args) -> float:
            # One owner task per client (anyio scopes must be left by the task that entered them).
            params = StdioServerParameters(command=sys.executable, args=args)
            stop = asyncio.Event()

            async def own(ready: asyncio.Event) -> None:
                async with mcp.Client(params, cache=None):
                    ready.set()
                    await stop.wait()

            readies = [asyncio.Event() for _ in range(count)]
            start = time.perf_counter()
            tasks = [asyncio.create_task(own(r)) for r in readies]
            await asyncio.gather(*(r.wait() for r in readies))
            elapsed = time.perf_counter() - start
            stop.set()
            await asyncio.gather(*tasks)
            return elapsed

        variants = {
            "ours1": lambda: connect_ours(1), f"ours{group}": lambda: connect_ours(group),
            "raw1": lambda: connect_raw(1), f"raw{group}": lambda: connect_raw(group),
        }
        medians = await interleaved(variants, reps)
        report(Row(f"5. {label} server: ClientGroup of {group} stdio servers, astart / a group of 1",
                   medians[f"ours{group}"] / medians["ours1"], 1.5,
                   f"[1: {fmt_ms(medians['ours1'])}, {group}: {fmt_ms(medians[f'ours{group}'])}]"))
        report(Row(f"5. {label} server: reference, raw SDK, {group} servers / 1 (same machine)",
                   medians[f"raw{group}"] / medians["raw1"], None,
                   f"[1: {fmt_ms(medians['raw1'])}, {group}: {fmt_ms(medians[f'raw{group}'])}]"))
        report(Row(f"5. {label} server: connect 1, ours / raw SDK", medians["ours1"] / medians["raw1"], None, ""))


# -- 6: conversions --------------------------------------------------------------------------------


def bench_conversion(n_tools: int, n_results: int) -> None:
    from mcp_types import TextContent

    from mcp_litellm._client.primitives.tool import Tool, ToolResult

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "units": {"type": "string", "enum": ["metric", "imperial"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["city"],
    }
    tools = [Tool(name=f"tool_{i}", mcp_name=f"tool_{i}", description=f"Tool number {i}.",
                  input_schema=dict(schema), client=None)  # type: ignore[arg-type]
             for i in range(n_tools)]
    for model in (None, "gemini/gemini-2.0-flash"):
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            definitions = [t.to_litellm(model) for t in tools]
            samples.append(time.perf_counter() - start)
        assert len(definitions) == n_tools and definitions[0]["function"]["name"] == "tool_0"
        report(Row(f"6. {n_tools} tools -> LiteLLM definitions (model={model})",
                   statistics.median(samples) / n_tools * 1e6, None, "per tool (median of 5)", " us"))
    results = [ToolResult(content=[TextContent(type="text", text=f"result {i}")], tool_name="t")
               for i in range(n_results)]
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        messages = [r.to_message(f"call_{i}") for i, r in enumerate(results)]
        samples.append(time.perf_counter() - start)
    assert messages[-1]["content"] == f"result {n_results - 1}"
    report(Row(f"6. {n_results} tool results -> tool messages", statistics.median(samples) / n_results * 1e6,
               None, "per result (median of 5)", " us"))


# -- 7: memory -------------------------------------------------------------------------------------


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


async def bench_memory(calls: int) -> None:
    client = ml.client("mem", "memory", {"server": build_server()}, start=False)
    await client.astart()
    try:
        for _ in range(1000):  # warm up: caches, pools, interned strings
            await client.aexecute_tool("add", ARGS)
        gc.collect()
        before = rss_bytes()
        for _ in range(calls):
            await client.aexecute_tool("add", ARGS)
        gc.collect()
        growth = (rss_bytes() - before) / 2**20
    finally:
        await client.astop()
    report(Row(f"7. RSS growth over {calls} in-memory tool calls", growth, 5.0,
               "(MB, after 1,000 warm-up calls)", " MB"))


# -- 9: stdio throughput for large results ------------------------------------------------------------

HOSTILE = ROOT / "tests" / "servers" / "hostile_stdio_server.py"


async def bench_throughput(reps: int) -> None:
    """One tool result of 1, 10 and 50 MB in a single stdout line: MB/s, and how it scales with size.

    The raw SDK's stdio client is measured beside ours at 1 and 10 MB only: its reader re-joins the
    whole buffer for every chunk (quadratic), so 50 MB takes it about 20 s a call here.
    """
    config = {"command": sys.executable, "args": [str(HOSTILE), "huge"]}
    ours = ml.client("throughput", "stdio", config, protocol="legacy", request_timeout=300, start=False)
    await ours.astart()
    try:
        async with mcp.Client(StdioServerParameters(command=sys.executable, args=[str(HOSTILE), "huge"]),
                              mode="legacy", cache=None) as raw:
            seconds: dict[int, float] = {}
            for size_mb in (1, 10, 50):
                size = size_mb * 1_000_000

                async def call_ours(size: int = size) -> float:
                    started = time.perf_counter()
                    result = await ours.aexecute_tool("run", {"size": size})
                    assert len(result.text) == size
                    return time.perf_counter() - started

                async def call_raw(size: int = size) -> float:
                    started = time.perf_counter()
                    result = await raw.call_tool("run", {"size": size}, read_timeout_seconds=300)
                    assert len(result.content[0].text) == size  # type: ignore[union-attr]
                    return time.perf_counter() - started

                variants = {"ours": call_ours} if size_mb == 50 else {"ours": call_ours, "raw": call_raw}
                medians = await interleaved(variants, reps if size_mb < 50 else max(3, reps // 2))
                seconds[size_mb] = medians["ours"]
                report(Row(f"9. stdio, one {size_mb} MB tool result: ours", size_mb / medians["ours"], None,
                           f"({fmt_ms(medians['ours'])} a call)", " MB/s"))
                if "raw" in medians:
                    report(Row(f"9. stdio, one {size_mb} MB tool result: raw SDK", size_mb / medians["raw"], None,
                               f"({fmt_ms(medians['raw'])} a call)", " MB/s"))
            # linear: 50 MB should take about 5x what 10 MB takes (quadratic would be 25x)
            report(Row("9. stdio, time for 50 MB / 5 x time for 10 MB (1.0 = linear)",
                       seconds[50] / (5 * seconds[10]), 1.5, "(quadratic reading would give about 5)"))
    finally:
        await ours.astop()


# -- main ------------------------------------------------------------------------------------------


async def main(quick: bool, only: set[str], rows_json: bool = False, reps_override: int | None = None) -> None:
    n, reps = (100, 5) if quick else (300, 9)
    reps = reps_override or reps
    print(f"mcp_litellm benchmarks ({'quick' if quick else 'full'}); python {sys.version.split()[0]}, "
          f"mcp {version('mcp')}, litellm {version('litellm')}, {os.cpu_count()} cpu(s)", flush=True)
    if "calls" in only:
        for transport in ("memory", "stdio"):
            await bench_calls(transport, n, reps, 200)
    if "own-loop" in only:
        if only == {"own-loop"}:  # this process may hand its loop over: no client has run yet
            ml.use_running_loop()
            from _chat_bench import bench_chat_loop

            for transport in ("memory", "stdio"):
                await bench_calls(transport, n, reps, 200, own_loop=True)
                await bench_chat_loop(transport, 10 if quick else 20, reps, own_loop=True)
        else:
            run_child_group("own-loop", quick, reps_override)
    if only & {"chat", "stream"}:  # imported here: they need the test helpers (pytest, respx)
        from _chat_bench import bench_chat_loop, bench_first_chunk, bench_tool_phase
    if "chat" in only:
        for transport in ("memory", "stdio"):
            await bench_chat_loop(transport, 10 if quick else 20, reps)
        await bench_tool_phase(3 if quick else 5)
    if "stream" in only:
        await bench_first_chunk(20 if quick else 40, reps + 2)
    if "startup" in only:
        await bench_import(5 if quick else 11)
        await bench_connect(3 if quick else 7, 5)
    if "conversion" in only:
        bench_conversion(1000, 10000)
    if "memory" in only:
        await bench_memory(2000 if quick else 10000)
    if "throughput" in only:
        await bench_throughput(3 if quick else 5)
    if "concurrency" in only:
        from _concurrency_bench import bench_concurrency

        for transport in ("memory", "stdio"):
            await bench_concurrency(transport, 200, reps)
    if "load" in only:
        from _load_bench import bench_load

        await bench_load(quick, reps)
    if "peers" in only:
        from _peers import bench_peer_langchain, bench_peer_litellm

        for peer in (bench_peer_litellm, bench_peer_langchain):
            try:
                await peer(n, reps)
            except Exception as exc:  # a peer that cannot run is reported, not fatal
                report(Row(f"8. peer: {peer.__name__.removeprefix('bench_peer_')}", None, None,
                           f"could not run: {exc!r}"))
    if rows_json:
        for row in ROWS:
            print("ROW " + json.dumps(dataclasses.asdict(row)))
    else:
        print_table()


def run_child_group(group: str, quick: bool, reps: int | None = None) -> None:
    """Run one group in a fresh process (it changes process-wide state) and report its rows here."""
    command = [sys.executable, __file__, "--only", group, "--rows-json"] + (["--quick"] if quick else [])
    command += ["--reps", str(reps)] if reps else []
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    rows = [Row(**json.loads(line[4:])) for line in done.stdout.splitlines() if line.startswith("ROW ")]
    if done.returncode != 0 or not rows:
        report(Row(f"{group}: could not run", None, None, done.stderr.strip()[-500:]))
    for row in rows:
        report(row)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller N and fewer repetitions")
    parser.add_argument("--only", default=",".join(GROUPS),
                        help=f"comma-separated groups to run (default: all): {', '.join(GROUPS)}")
    parser.add_argument("--reps", type=int, default=None,
                        help="repetitions per figure (default 9, 5 with --quick); more narrows the noise")
    parser.add_argument("--rows-json", action="store_true", help=argparse.SUPPRESS)  # used by run_child_group
    args = parser.parse_args()
    groups = {g.strip() for g in args.only.split(",") if g.strip()}
    if groups - set(GROUPS):
        parser.error(f"unknown group(s): {', '.join(sorted(groups - set(GROUPS)))}; choose from {', '.join(GROUPS)}")
    if args.reps is not None and args.reps < 1:
        parser.error("--reps must be at least 1")
    asyncio.run(main(args.quick, groups, args.rows_json, args.reps))
