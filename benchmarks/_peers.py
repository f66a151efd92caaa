"""Benchmark 8: peers on the same server with the same calls, where they install beside mcp 2.x."""

from __future__ import annotations

import sys
import time

import mcp
from _harness import Row, interleaved, raw_and_ours, report

ARGS = {"a": 1, "b": 2}

# Found on 2026-11-22 with pip in a separate venv (pip install -e . langchain-mcp-adapters); see README.
LANGCHAIN_BLOCKED = (
    "langchain-mcp-adapters cannot run beside mcp 2.x: the latest release (0.3.2) declares mcp<2.0.0 "
    "(pip: ResolutionImpossible), and 0.3.1, which declares mcp>=1.24.0 and so installs beside mcp 2.3, "
    "fails at import (cannot import name 'RequestContext' from 'mcp.shared.context'; it also imports "
    "mcp.server.fastmcp, gone in 2.x)"
)


async def bench_peer_litellm(n: int, reps: int) -> None:
    """litellm's own MCP helpers (``litellm.experimental_mcp_client``) on an SDK session, same stdio server."""
    import litellm  # imported here only: it takes seconds
    from litellm.experimental_mcp_client import call_openai_tool, load_mcp_tools

    params, ours = raw_and_ours("stdio")
    async with mcp.Client(params, mode="auto", cache=None) as raw:
        await ours.astart()
        try:
            tool_call = {"id": "call_1", "type": "function",
                         "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
            assert (await call_openai_tool(raw.session, tool_call)).structured_content == {"result": 3}
            for _ in range(20):
                await raw.call_tool("add", ARGS)
                await ours.aexecute_tool("add", ARGS)

            async def raw_seq() -> float:
                start = time.perf_counter()
                for _ in range(n):
                    await raw.call_tool("add", ARGS)
                return time.perf_counter() - start

            async def peer_seq() -> float:
                start = time.perf_counter()
                for _ in range(n):
                    await call_openai_tool(raw.session, tool_call)
                return time.perf_counter() - start

            async def ours_seq() -> float:
                start = time.perf_counter()
                for _ in range(n):
                    await ours.aexecute_tool("add", ARGS)
                return time.perf_counter() - start

            medians = await interleaved({"raw": raw_seq, "peer": peer_seq, "ours": ours_seq}, reps)
            report(Row(f"8. peer: litellm.experimental_mcp_client.call_openai_tool / raw ({n} stdio calls)",
                       medians["peer"] / medians["raw"], None, f"[{medians['peer'] / n * 1e6:.0f} us/call]"))
            report(Row("8. ours aexecute_tool / litellm call_openai_tool (same run)", medians["ours"] / medians["peer"],
                       None, ""))
            sdk_tools = await load_mcp_tools(raw.session, format="mcp")
            our_tools = await ours.atools()
            start = time.perf_counter()
            for _ in range(100):
                [litellm.experimental_mcp_client.tools.transform_mcp_tool_to_openai_tool(t) for t in sdk_tools]
            theirs = (time.perf_counter() - start) / (100 * len(sdk_tools))
            start = time.perf_counter()
            for _ in range(100):
                [t.to_litellm() for t in our_tools]
            mine = (time.perf_counter() - start) / (100 * len(our_tools))
            report(Row(f"8. tool definitions: ours / litellm's transform_mcp_tool_to_openai_tool "
                       f"({len(our_tools)} fixture tools)", mine / theirs, None,
                       f"[ours {mine * 1e6:.2f} us, litellm {theirs * 1e6:.2f} us per tool]"))
        finally:
            await ours.astop()


async def bench_peer_langchain(n: int, reps: int) -> None:
    """langchain-mcp-adapters (see peer_langchain.py), when it imports in this environment."""
    try:
        import langchain_mcp_adapters.client  # noqa: F401
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("langchain"):
            report(Row("8. peer: langchain-mcp-adapters", None, None, f"not run: not installed; {LANGCHAIN_BLOCKED}"))
            return
        report(Row("8. peer: langchain-mcp-adapters", None, None, f"not run: import failed: {exc}"))
        return
    except ImportError as exc:
        report(Row("8. peer: langchain-mcp-adapters", None, None, f"not run: import failed: {exc}"))
        return
    from peer_langchain import measure

    medians = await measure(sys.executable, n, 5, max(3, reps // 2))
    raw = medians["raw"]
    report(Row("8. peer: langchain-mcp-adapters tools on one session / raw (stdio)", medians["langchain_session"] / raw,
               None, f"[{medians['langchain_session'] * 1e6:.0f} us/call]"))
    report(Row("8. peer: langchain-mcp-adapters default tools (a session per call) / raw (stdio)",
               medians["langchain_default"] / raw, None, f"[{medians['langchain_default'] * 1e3:.0f} ms/call]"))
