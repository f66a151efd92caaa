"""Prompt caching (issue 23): a ten-turn chat over the tools of six real servers, prompt cache off and on.

Run from the repository root::

    python benchmarks/prompt_cache.py

The model is scripted at the HTTP level (respx) as Anthropic's Messages API and as OpenAI's Chat
Completions (tests/chat/caching_llm.py): each turn calls one tool, then answers. The scripted servers
report cache reads for the longest prefix they saw before, as the providers do: Anthropic's only up to a
block the request marked ``cache_control``, OpenAI's on their own, from 1,024 tokens in 128-token steps.
The tools are the real catalogs of six third-party servers (benchmarks/search_catalogs/), offered as
local tools. Tokens are counted by the scripted server (characters / 4 of each block), the same on both
sides. Printed: prompt tokens in all, tokens billed at the full input price, and the share of prompt tokens
read from the cache from the second request on (target: at least 70%).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mcp_litellm as ml  # noqa: E402
from tests.chat.caching_llm import AnthropicCache, OpenAICache  # noqa: E402
from tests.scripted_llm.respx_mock import litellm_respx  # noqa: E402

CATALOGS = ("everything", "filesystem", "memory", "git", "time", "fetch")
TURNS = 10
SYSTEM = ("You are a careful assistant working on the user's files, notes and repositories. Use the tools "
          "when they help; answer briefly.")


def local_tools() -> list[tuple[dict[str, Any], Any]]:
    tools = []
    for server in CATALOGS:
        catalog = json.loads((ROOT / "benchmarks" / "search_catalogs" / f"{server}.json").read_text())
        for tool in catalog["tools"]:
            name = f"{server}__{tool['name']}"[:64].replace(".", "_")
            definition = {"type": "function", "function": {"name": name, "description": tool.get("description", ""),
                                                           "parameters": tool.get("inputSchema") or {}}}
            tools.append((definition, lambda **_: "ok: 3 items"))
    return tools


def anthropic_script(name: str) -> list[Any]:
    answers: list[Any] = []
    for turn in range(TURNS):
        answers.append(lambda body, t=turn: {"content": [{"type": "tool_use", "id": f"toolu_{t}", "name": name,
                                                          "input": {}}], "stop_reason": "tool_use"})
        answers.append(lambda body, t=turn: {"content": [{"type": "text", "text": f"Done with step {t}."}],
                                             "stop_reason": "end_turn"})
    return answers


def openai_script(name: str) -> list[Any]:
    answers: list[Any] = []
    for turn in range(TURNS):
        answers.append(lambda body, t=turn: {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{t}", "type": "function", "function": {"name": name, "arguments": "{}"}}]})
        answers.append(lambda body, t=turn: {"role": "assistant", "content": f"Done with step {t}."})
    return answers


def run(api: str, prompt_cache: bool) -> dict[str, float]:
    tools = local_tools()
    name = tools[0][0]["function"]["name"]
    with litellm_respx() as router:
        if api == "anthropic":
            server: Any = AnthropicCache(anthropic_script(name))
            router.post(url__regex=r"http://anthropic\.test/.*").mock(side_effect=server)
            chat = ml.Chat("anthropic/claude-sonnet-4-5", api_base="http://anthropic.test", api_key="sk-ant-bench",
                           tool_search=False, prompt_cache="auto" if prompt_cache else False)
        else:
            server = OpenAICache(openai_script(name))
            router.post("http://openai.test/v1/chat/completions").mock(side_effect=server)
            chat = ml.Chat("openai/gpt-4o-mini", api_base="http://openai.test/v1", api_key="sk-bench",
                           tool_search=False, prompt_cache="auto" if prompt_cache else False)
        chat.with_instructions(SYSTEM).with_tools(*tools)
        for turn in range(TURNS):
            chat.ask(f"Step {turn}: check the state of the project and tell me.")
    if api == "anthropic":
        prompt = [u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
                  for u in server.usage]
        read = [u["cache_read_input_tokens"] for u in server.usage]
        written = [u["cache_creation_input_tokens"] for u in server.usage]
    else:
        prompt = [u["prompt_tokens"] for u in server.usage]
        read = [u["prompt_tokens_details"]["cached_tokens"] for u in server.usage]
        written = [0 for _ in server.usage]
    assert chat.usage.cache_read_tokens == sum(read), "the chat's usage disagrees with the server's"
    full_price = sum(p - r - w for p, r, w in zip(prompt, read, written, strict=True))
    return {"requests": len(prompt), "prompt": sum(prompt), "full_price": full_price,
            "read": sum(read), "written": sum(written),
            "hit_after_first": sum(read[1:]) / max(1, sum(prompt[1:])),
            "tool_tokens": len(json.dumps(server.requests[0]["tools"])) // 4}


def main() -> None:
    print(f"{TURNS} turns, one tool call each, {len(local_tools())} tools of six servers\n")
    print(f"{'API':<10} {'prompt_cache':<13} {'requests':>8} {'prompt tok':>11} {'full price':>11} "
          f"{'cache read':>11} {'cache write':>12} {'hit from 2nd':>13}")
    for api in ("anthropic", "openai"):
        for on in (False, True):
            r = run(api, on)
            print(f"{api:<10} {'auto' if on else 'False':<13} {r['requests']:>8} {r['prompt']:>11,} "
                  f"{r['full_price']:>11,} {r['read']:>11,} {r['written']:>12,} {r['hit_after_first']:>12.1%}")


if __name__ == "__main__":
    main()
