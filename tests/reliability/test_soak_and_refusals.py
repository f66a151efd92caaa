"""Many callers on one client at once, and server-initiated requests the client did not enable."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest

import mcp_litellm as ml

THREADS = 4
LOOPS = 2
CALLS = 2000  # the 10,000-call soak is in benchmarks/run.py's memory run; CI keeps this short


def test_soak_threads_and_event_loops_share_one_client(make_client):
    client = make_client("stdio", request_timeout=30)
    per_worker = CALLS // (THREADS + LOOPS)
    answers: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def thread_worker(worker: int) -> None:
        try:
            for i in range(per_worker):
                text = client.execute_tool("echo", {"message": f"t{worker}-{i}"}).text
                with lock:
                    answers.append(text)
        except BaseException as exc:
            errors.append(exc)

    def loop_worker(worker: int) -> None:
        async def run() -> list[str]:
            batch = 25  # several calls in flight from each loop
            texts: list[str] = []
            for start in range(0, per_worker, batch):
                results = await asyncio.gather(*(client.aexecute_tool("echo", {"message": f"l{worker}-{i}"})
                                                 for i in range(start, min(start + batch, per_worker))))
                texts.extend(r.text for r in results)
            return texts

        try:
            texts = asyncio.run(run())
            with lock:
                answers.extend(texts)
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=thread_worker, args=(w,)) for w in range(THREADS)]
    workers += [threading.Thread(target=loop_worker, args=(w,)) for w in range(LOOPS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not any(w.is_alive() for w in workers), "a worker hung"
    assert errors == []
    expected = [f"t{w}-{i}" for w in range(THREADS) for i in range(per_worker)]
    expected += [f"l{w}-{i}" for w in range(LOOPS) for i in range(per_worker)]
    counts = Counter(answers)
    assert sorted(counts) == sorted(expected), "answers lost or mixed up"
    assert max(counts.values()) == 1, "an answer was duplicated"
    assert len(answers) == len(expected)
    assert client.is_alive()


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
@pytest.mark.parametrize("tool", ["ask_model", "ask_user"])
def test_disabled_sampling_and_elicitation_are_refused(make_client, protocol, tool):
    client = make_client("stdio", protocol=protocol, request_timeout=10)
    arguments = {"question": "what is 2+2?"} if tool == "ask_model" else {}
    try:
        result = client.execute_tool(tool, arguments)
    except ml.ServerError as exc:  # the refusal comes back as the tools/call's JSON-RPC error
        outcome = f"ServerError {exc.code}: {exc.message}"
    except ml.ConfigError as exc:  # ... which the client recognises as its own "<Feature> not supported"
        assert isinstance(exc.__cause__, ml.ServerError) and exc.__cause__.code == -32600
        outcome = f"ConfigError -32600: {exc}"
    else:
        assert result.is_error, f"the server got an answer although {tool} is disabled: {result.text!r}"
        outcome = f"error result: {result.text}"
    feature = "sampling" if tool == "ask_model" else "elicitation"
    # legacy era: the client answers "<Feature> not supported"; 2026 era: the server has no back channel
    assert "-32600" in outcome and feature in outcome.lower(), outcome
    assert client.is_alive() and client.execute_tool("add", {"a": 1, "b": 1}).text == "2"
