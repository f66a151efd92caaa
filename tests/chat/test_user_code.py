"""User code (hooks, local tools) never runs on the loop that carries every MCP session, and sync local
tools share one bounded pool of threads."""

from __future__ import annotations

import concurrent.futures
import threading
import time

import mcp_litellm as ml
from mcp_litellm._core import user_code
from tests.helpers.chat import new_chat
from tests.scripted_llm.openai import Turn


def test_a_slow_sync_hook_in_one_chat_does_not_delay_another_threads_tool_call(llm, make_client):
    client = make_client("memory")
    entered, release = threading.Event(), threading.Event()

    def slow_hook(call: ml.ToolCall) -> None:
        entered.set()
        release.wait(30)  # a hook that blocks (a prompt to the user, a slow log sink)

    llm.then(Turn(tool_calls=[("c1", "echo", {"message": "from the chat"})]), Turn(content="done"))
    chat = new_chat().with_tools(client.tool("echo")).on_tool_call(slow_hook)
    with concurrent.futures.ThreadPoolExecutor(2) as threads:
        asked = threads.submit(chat.ask, "echo something")
        try:
            assert entered.wait(10), "the hook never ran"
            other = threads.submit(client.execute_tool, "echo", {"message": "from another thread"})
            # while the hook blocks, a tool call from another thread still goes through the shared loop
            assert other.result(timeout=10).text == "from another thread"
            assert not asked.done(), "the chat should still be waiting for its hook"
        finally:
            release.set()
        assert asked.result(timeout=30).content == "done"
    assert llm.tool_messages(1)[0]["content"] == "from the chat"


def test_sync_on_chunk_and_hooks_do_not_run_on_the_sessions_loop(llm, make_client):
    client = make_client("memory")
    threads: set[str] = set()

    def record(*_args: object) -> None:
        threads.add(threading.current_thread().name)

    llm.then(Turn(tool_calls=[("c1", "echo", {"message": "x"})]), Turn(content="the end"))
    chat = (new_chat().with_tools(client.tool("echo")).on_tool_call(record).on_tool_result(record)
            .on_new_message(record))
    assert chat.ask("go", on_chunk=record).content == "the end"
    assert threads and "mcp-litellm-loop" not in threads, threads


def test_sync_local_tools_run_on_a_bounded_pool(llm):
    calls = user_code.MAX_WORKERS + 20
    running = 0
    most = 0
    idents: set[int] = set()
    lock = threading.Lock()

    def slow(n: int) -> int:
        """Wait a little, then return n."""
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
            idents.add(threading.get_ident())
        time.sleep(0.2)
        with lock:
            running -= 1
        return n

    before = threading.active_count()
    llm.then(Turn(tool_calls=[(f"c{i}", "slow", {"n": i}) for i in range(calls)]), Turn(content="all done"))
    assert new_chat().with_tools(slow).ask("many").content == "all done"
    answers = sorted(int(m["content"]) for m in llm.tool_messages(1))
    assert answers == list(range(calls)), "every call was answered"
    assert most > 1, "sync local tools should still run concurrently"
    assert len(idents) <= user_code.MAX_WORKERS, f"{len(idents)} threads ran {calls} calls"
    assert most <= user_code.MAX_WORKERS
    assert threading.active_count() - before <= user_code.MAX_WORKERS
