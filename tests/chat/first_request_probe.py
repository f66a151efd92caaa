"""Run in a fresh interpreter by test_first_request.py: one first ``aask`` against a scripted
OpenAI-compatible model on 127.0.0.1, with a ticker task on the same loop measuring its longest stall,
and a record of the modules imported on the loop's thread meanwhile. Prints one JSON line."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import threading
import time
from typing import Any

import mcp_litellm as ml
from tests.scripted_llm.server import Turn, fake_llm

TICK = 0.005


class ImportRecorder:
    """A meta-path finder that finds nothing: it notes the modules first imported on one thread."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.names: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if threading.current_thread() is self.thread:
            self.names.append(name)


class CollectionTimer:
    """Times the cyclic garbage collector's passes: with LiteLLM imported the heap holds about 440,000
    objects and a full collection takes about 0.23 s, holding the GIL in whichever thread triggered it (an
    import in the warm-up thread, usually). Such a pause can land anywhere in a process this size; it is the
    heap's, not the first request's, so the test allows for the longest one seen."""

    def __init__(self) -> None:
        self.started = 0.0
        self.longest = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.longest = max(self.longest, time.perf_counter() - self.started)


async def first_request(url: str, mode: str, recorder: ImportRecorder) -> dict[str, Any]:
    gaps: list[float] = []
    collections = CollectionTimer()

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            gaps.append(now - last - TICK)
            last = now

    if mode == "router":
        import litellm  # the user's own import, before the chat: not what is measured

        router = litellm.Router(model_list=[{"model_name": "fast", "litellm_params": {
            "model": "openai/scripted", "api_base": url, "api_key": "sk-test"}}])
        chat = ml.Chat("fast", router=router)
    else:
        chat = ml.Chat("openai/scripted", api_base=url, api_key="sk-test")
    if mode == "tools":  # tool definitions are counted in tokens: the tokenizer loads in the thread too
        def add(a: int, b: int) -> int:
            """Add two numbers."""
            return a + b

        chat.with_tools(add)
    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.05)
    recorder.thread = threading.current_thread()
    gc.callbacks.append(collections)
    started = time.perf_counter()
    answer = await chat.aask("hi", on_chunk=(lambda chunk: None) if mode == "stream" else None)
    took = time.perf_counter() - started
    gc.callbacks.remove(collections)
    recorder.thread = None
    task.cancel()
    return {"answer": answer.content, "took": took, "max_gap": max(gaps), "ticks": len(gaps),
            "gc_pause": collections.longest, "imported_on_loop": recorder.names}


def main() -> None:
    mode = sys.argv[1]
    litellm_before = "litellm" in sys.modules
    recorder = ImportRecorder()
    sys.meta_path.insert(0, recorder)
    with fake_llm([Turn("hello")]) as llm:
        result = asyncio.run(first_request(llm.url, mode, recorder))
    result["litellm_at_start"] = litellm_before
    print(json.dumps(result))


if __name__ == "__main__":
    main()
