"""Peer benchmark: langchain-mcp-adapters against the raw mcp SDK, on the fixture server over stdio.

Standalone on purpose: langchain-mcp-adapters does not install beside mcp 2.x (see
benchmarks/README.md), so this script needs nothing but ``mcp`` and ``langchain-mcp-adapters`` and
can run in a venv of their own. The fixture server needs mcp 2.x: pass that venv's Python::

    /path/to/peer-venv/bin/python benchmarks/peer_langchain.py --server-python /work/venv/bin/python

Both variants and the reference run in this one process, interleaved (medians), like run.py:
- reference: ``ClientSession.call_tool`` on one open session;
- langchain default tools (``MultiServerMCPClient.get_tools()``): every call opens a new session,
  which for stdio means a new server process;
- langchain tools bound to one open session (``load_mcp_tools(session)``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from importlib.metadata import version
from typing import Any

from _harness import FIXTURE, interleaved  # stdlib-only at import, so it loads in the peer's own venv

ARGS = {"a": 1, "b": 2}


def _text(result: Any) -> str:
    """The text of a LangChain tool's answer (a string, or content blocks, depending on the version)."""
    if isinstance(result, tuple):
        result = result[0]
    if isinstance(result, list):
        return "".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in result)
    return str(result)


async def measure(server_python: str, n: int, per_session_calls: int, reps: int) -> dict[str, float]:
    """Seconds per call (medians): ``raw``, ``langchain_default`` (a session per call), ``langchain_session``."""
    from langchain_mcp_adapters.client import MultiServerMCPClient
    from langchain_mcp_adapters.tools import load_mcp_tools
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    connection = {"command": server_python, "args": [str(FIXTURE)], "transport": "stdio"}
    client = MultiServerMCPClient({"fixture": connection})  # type: ignore[dict-item]
    default_add = next(t for t in await client.get_tools() if t.name == "add")
    params = StdioServerParameters(command=server_python, args=[str(FIXTURE)])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as raw:
        await raw.initialize()
        async with client.session("fixture") as session:
            session_add = next(t for t in await load_mcp_tools(session) if t.name == "add")
            assert _text(await session_add.ainvoke(ARGS)) == "3"
            assert _text(await default_add.ainvoke(ARGS)) == "3"
            for _ in range(20):
                await raw.call_tool("add", ARGS)
                await session_add.ainvoke(ARGS)

            async def raw_calls() -> float:
                start = time.perf_counter()
                for _ in range(n):
                    result = await raw.call_tool("add", ARGS)
                assert result.content[0].text == "3"  # type: ignore[union-attr]
                return (time.perf_counter() - start) / n

            async def session_calls() -> float:
                start = time.perf_counter()
                for _ in range(n):
                    result = await session_add.ainvoke(ARGS)
                assert _text(result) == "3"
                return (time.perf_counter() - start) / n

            async def default_calls() -> float:
                start = time.perf_counter()
                for _ in range(per_session_calls):
                    result = await default_add.ainvoke(ARGS)
                assert _text(result) == "3"
                return (time.perf_counter() - start) / per_session_calls

            medians = await interleaved({"raw": raw_calls, "langchain_session": session_calls,
                                          "langchain_default": default_calls}, reps)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server-python", default=sys.executable, help="a Python with mcp 2.x for the server")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n, per_session, reps = (100, 3, 3) if args.quick else (300, 5, 7)
    print(f"langchain-mcp-adapters {version('langchain-mcp-adapters')}, mcp {version('mcp')} (client side), "
          f"python {sys.version.split()[0]}", flush=True)
    medians = asyncio.run(measure(args.server_python, n, per_session, reps))
    raw = medians["raw"]
    print(f"raw ClientSession.call_tool: {raw * 1e6:.0f} us/call")
    for name in ("langchain_session", "langchain_default"):
        print(f"{name}: {medians[name] * 1e6:.0f} us/call, {medians[name] / raw:.2f}x raw")


if __name__ == "__main__":
    main()
