"""Asks made at once on one chat take turns (sync and async alike): each answer is its own question's, and the
history stays user, assistant, tool, assistant, user, ... The model is scripted at the HTTP level and answers
from the request's last user message, so a mixed-up history shows as a wrong answer."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import mcp_litellm as ml
from tests.helpers.chat import LLM, assert_history_valid
from tests.scripted_llm.openai import Turn, completion_body, sse, stream_chunks
from tests.scripted_llm.respx_mock import API_BASE, MODEL, litellm_respx


class EchoingLLM:
    """Answers from the last user message ``q``: first a call of ``lookup(key=q)``, then, once the tool answered,
    ``"answer to q: <the tool's result>"``. Records the (question, kind) of each request."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    async def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        messages = body["messages"]
        question = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        if isinstance(question, list):  # content parts (a prompt's message)
            question = " ".join(p.get("text", "") for p in question)
        await asyncio.sleep(0.01)  # let another ask get in, were it not kept out
        if messages[-1]["role"] == "tool":
            turn = Turn(content=f"answer to {question}: {messages[-1]['content']}")
            kind = "answer"
        else:
            turn = Turn(tool_calls=[(f"call-{question[:20].replace(' ', '-')}", "lookup", {"key": question})])
            kind = "call"
        with self._lock:
            self.seen.append((question, kind))
        if body.get("stream"):
            return httpx.Response(200, content=sse(stream_chunks(turn)), headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=completion_body(turn))


@pytest.fixture
def echoing() -> Iterator[EchoingLLM]:
    with litellm_respx() as router:
        llm = EchoingLLM()
        router.post(f"{API_BASE}/chat/completions").mock(side_effect=llm)
        yield llm


def lookup(key: str) -> str:
    """Look a key up."""
    return f"value of {key}"


def new_chat() -> ml.Chat:
    return ml.Chat(MODEL, **LLM).with_tools(lookup)


def assert_turns(messages: list[dict[str, Any]], questions: list[str]) -> None:
    """Whole turns one after another: user q, assistant (calls lookup), tool, assistant (answers q)."""
    assert_history_valid(messages)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"] * len(questions)
    asked = [m["content"] for m in messages[::4]]
    assert sorted(asked) == sorted(questions)
    for i, question in enumerate(asked):
        _, call, tool, answer = messages[4 * i: 4 * i + 4]
        assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == {"key": question}
        assert tool["content"] == f"value of {question}"
        assert answer["content"] == f"answer to {question}: value of {question}"


async def test_two_aasks_at_once_take_turns(echoing):
    chat = new_chat()
    questions = ["first question", "second question"]
    answers = await asyncio.gather(*(chat.aask(q) for q in questions))
    assert [a.content for a in answers] == [f"answer to {q}: value of {q}" for q in questions]
    assert_turns(chat.messages, questions)
    assert chat.messages[0]["content"] == "first question"  # in the order they were asked


def test_four_threads_asking_take_turns(echoing):
    chat = new_chat()
    questions = [f"question {i}" for i in range(4)]
    answers: dict[str, str] = {}
    start = threading.Barrier(len(questions))

    def ask(question: str) -> None:
        start.wait()
        answers[question] = chat.ask(question).content

    threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert answers == {q: f"answer to {q}: value of {q}" for q in questions}
    assert_turns(chat.messages, questions)


async def test_a_stream_holds_the_turn_until_it_is_closed(echoing):
    chat = new_chat()
    stream = chat.astream("streamed question")
    first = await anext(stream)
    assert first is not None
    waiting = asyncio.ensure_future(chat.aask("waiting question"))
    for _ in range(20):  # give the waiting ask every chance to start (it must not)
        await asyncio.sleep(0.01)
    assert not waiting.done()
    assert all(question == "streamed question" for question, _ in echoing.seen)
    rest = [chunk async for chunk in stream]  # consume the stream: the turn ends, the waiting ask runs
    assert any(c.event == "tool_end" for c in rest)
    answer = await asyncio.wait_for(waiting, 60)
    assert answer.content == "answer to waiting question: value of waiting question"
    assert_turns(chat.messages, ["streamed question", "waiting question"])


async def test_a_stream_closed_early_lets_the_next_ask_in(echoing):
    chat = new_chat()
    stream = chat.astream("left early")
    await anext(stream)
    waiting = asyncio.ensure_future(chat.aask("next"))
    await asyncio.sleep(0.05)
    assert not waiting.done() and {question for question, _ in echoing.seen} == {"left early"}
    await stream.aclose()
    answer = await asyncio.wait_for(waiting, 60)
    assert answer.content == "answer to next: value of next"
    assert_history_valid(chat.messages)
    assert chat.messages[-4]["content"] == "next"


def test_asking_on_the_thread_that_reads_a_sync_stream_is_refused_not_a_hang(echoing):
    # it waited for ever: the stream holds the turn until this very thread reads on (a black-box pass)
    chat = new_chat()
    stream = chat.stream("outer")
    next(stream)
    with pytest.raises(ml.ConfigError, match="would wait for itself"):
        chat.ask("inner")
    with pytest.raises(ml.ConfigError, match="would wait for itself"):
        next(chat.stream("inner stream"))
    for _ in stream:  # the outer stream reads on to its end; the turn is then free on this thread too
        pass
    assert chat.ask("after").content == "answer to after: value of after"
    for _ in chat.stream("left with break"):
        break
    assert chat.ask("after break").content == "answer to after break: value of after break"
    assert_history_valid(chat.messages)


async def test_a_cancelled_waiting_ask_leaves_the_queue(echoing):
    chat = new_chat()
    stream = chat.astream("holder")
    await anext(stream)
    cancelled = asyncio.ensure_future(chat.aask("never"))
    later = asyncio.ensure_future(chat.aask("later"))
    await asyncio.sleep(0.05)
    cancelled.cancel()
    await stream.aclose()
    assert (await asyncio.wait_for(later, 60)).content == "answer to later: value of later"
    assert cancelled.cancelled()
    assert "never" not in json.dumps(chat.messages)


def test_sync_and_async_asks_take_turns_with_ask_prompt(echoing, make_client):
    client = make_client("memory")
    greeting = client.prompt("greeting")
    chat = new_chat()
    done = threading.Event()
    sync_answer: list[str] = []

    def sync_ask() -> None:
        sync_answer.append(chat.ask("from a thread").content)
        done.set()

    async def both() -> list[ml.Message]:
        thread = threading.Thread(target=sync_ask)
        thread.start()
        answers = await asyncio.gather(chat.aask_prompt(greeting, {"name": "Ada"}), chat.aask("from a task"))
        await asyncio.to_thread(thread.join, 120)
        return list(answers)

    prompted, tasked = asyncio.run(both())
    assert done.is_set()
    assert sync_answer == ["answer to from a thread: value of from a thread"]
    assert prompted.content.startswith("answer to Good morning, Ada!")
    assert tasked.content == "answer to from a task: value of from a task"
    assert_history_valid(chat.messages)
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"] * 3


async def test_a_waiter_cancelled_as_the_turn_is_handed_to_it_passes_the_turn_on():
    from mcp_litellm._chat.turn_lock import TurnLock

    lock = TurnLock()
    await lock.acquire()
    handed = asyncio.ensure_future(lock.acquire())
    await asyncio.sleep(0)  # it waits now
    assert lock.locked and not handed.done()
    lock.release()  # the turn is handed to it...
    handed.cancel()  # ...and it is cancelled before it could take it
    with pytest.raises(asyncio.CancelledError):
        await handed
    await asyncio.wait_for(lock.acquire(), 30)  # the turn was passed on, not lost
    lock.release()
    assert not lock.locked
