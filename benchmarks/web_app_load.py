"""Issue 26: the web app under load. N chat requests, C at a time, through a real uvicorn, for 100 users
with per-user connections (each user's own API key in a header) to an HTTP MCP server; the model is
scripted at the HTTP level (tests/group/fake_llm.py: a tool call, then an answer quoting the tool's result).

Run from the repository root::

    python benchmarks/web_app_load.py                     # 2000 requests, 50 at a time, 100 users
    python benchmarks/web_app_load.py --requests 500 --concurrency 50 --idle-timeout 45

Prints requests per second, p50/p99 latency, the app's memory (RSS now and peak, Python's allocated blocks)
and open file descriptors: before any user, under load (100 users connected), and after ``idle_timeout``
without requests (every user evicted: connections closed, memory and descriptors given back). Every
answer is checked to carry its own user's key (no cross-talk).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.group.fake_llm import Turn, fake_llm  # noqa: E402

from tests.helpers.servers import free_port, start_http_server, stop_process, wait_for_port  # noqa: E402

POOL_SERVER = ROOT / "tests" / "servers" / "pool_server.py"


def answer(body: dict[str, Any]) -> Turn:
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Turn(content=f"Your key is {last['content']}.")
    return Turn(tool_calls=[("call-1", "crm__whoami" if any(
        t["function"]["name"] == "crm__whoami" for t in body.get("tools", [])) else "whoami", {})])


async def load(base: str, requests: int, concurrency: int, users: int) -> tuple[float, list[float]]:
    latencies: list[float] = []
    failures: list[str] = []
    crossed: list[str] = []
    begun = time.perf_counter()
    queue = iter(range(requests))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:

        async def worker() -> None:
            for i in queue:
                user = f"user{i % users:03d}"
                start = time.perf_counter()
                response = await http.post("/chat", json={"user": user, "message": "Who am I?"})
                latencies.append(time.perf_counter() - start)
                response.raise_for_status()
                text = response.json()["answer"]
                keys = re.findall(r"key-of-user\d+", text)
                if any(key != f"key-of-{user}" for key in keys):
                    crossed.append(f"{user}: {text}")
                elif not keys:
                    failures.append(f"{time.perf_counter() - begun:.1f}s {user}: {text}")

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    if crossed:
        raise SystemExit(f"cross-talk: {len(crossed)} answers carried another user's key; first: {crossed[:3]}")
    if failures:
        print(f"  {len(failures)} of {requests} requests failed (no key in the answer); first: {failures[:2]}")
    return elapsed, latencies


def stats(base: str) -> dict[str, int]:
    result: dict[str, int] = httpx.get(f"{base}/stats", timeout=30).json()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--idle-timeout", type=float, default=45.0,
                        help="the pool's idle_timeout: longer than the slowest request (see the README)")
    args = parser.parse_args()

    mcp_port = free_port()
    mcp_server = start_http_server([sys.executable, str(POOL_SERVER), "streamable-http", "--port", str(mcp_port)],
                                   mcp_port)
    try:
        with fake_llm([], respond=answer) as llm:
            port = free_port()
            env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'benchmarks'}",
                   "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LOAD_MCP_URL": f"http://127.0.0.1:{mcp_port}/mcp",
                   "LOAD_LLM_URL": llm.url, "LOAD_IDLE_TIMEOUT": str(args.idle_timeout)}
            app = subprocess.Popen([sys.executable, "-m", "uvicorn", "_web_load_app:app", "--host", "127.0.0.1",
                                    "--port", str(port), "--log-level", "warning", "--no-access-log"],
                                   cwd=ROOT / "benchmarks", env=env, stdout=subprocess.DEVNULL)
            base = f"http://127.0.0.1:{port}"
            try:
                wait_for_port(port, app, timeout=60)
                asyncio.run(load(base, args.users, min(10, args.concurrency), args.users))  # warm-up: every
                # user connects once (10 at a time), then all are evicted
                time.sleep(args.idle_timeout + 1.5)
                before = stats(base)
                elapsed, latencies = asyncio.run(load(base, args.requests, args.concurrency, args.users))
                during = stats(base)
                deadline = time.monotonic() + args.idle_timeout * 4 + 10
                after = stats(base)
                while after["users"] and time.monotonic() < deadline:
                    time.sleep(0.5)
                    after = stats(base)
                time.sleep(1.0)  # the evicted connections finish closing
                after = stats(base)
            finally:
                app.send_signal(signal.SIGINT)
                try:
                    app.wait(30)
                except subprocess.TimeoutExpired:
                    app.kill()
                    app.wait()
    finally:
        stop_process(mcp_server)

    quantiles = statistics.quantiles(latencies, n=100, method="inclusive")
    print(f"web app under load: {args.requests} chat requests, {args.concurrency} at a time, {args.users} users "
          f"with per-user HTTP MCP connections (idle_timeout {args.idle_timeout:g}s)")
    print(f"  throughput      {args.requests / elapsed:8.1f} requests/s   ({elapsed:.2f} s)")
    print(f"  latency         p50 {quantiles[49] * 1000:7.1f} ms   p99 {quantiles[98] * 1000:7.1f} ms   "
          f"max {max(latencies) * 1000:7.1f} ms")
    print("  app process     users   RSS MiB   allocated blocks   open fds")
    for label, row in (("no users", before), ("under load", during), ("idle, evicted", after)):
        print(f"  {label:<15} {row['users']:5d}   {row['rss_kb'] / 1024:7.1f}   {row['blocks']:16d}   {row['fds']:8d}")
    print(f"  peak RSS        {during['peak_rss_kb'] / 1024:.1f} MiB")
    print(f"  evicted: {during['users'] - after['users']} of {during['users']} users; fds given back: "
          f"{during['fds'] - after['fds']} of {during['fds'] - before['fds']} opened; allocated blocks given back: "
          f"{during['blocks'] - after['blocks']} of {during['blocks'] - before['blocks']}")
    if after["users"] or after["fds"] > before["fds"] + 5:
        raise SystemExit("idle users were not evicted, or their connections stayed open")


if __name__ == "__main__":
    main()
