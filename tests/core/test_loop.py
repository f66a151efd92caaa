"""The loop that owns the sessions (``_client/session/loop.py``), tested directly: sync iteration that stops early,
Ctrl-C during a sync call, and the hand-over to the caller's own loop (``ml.use_running_loop()``)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable

import pytest

from mcp_litellm._client.session import loop as owner


def test_leaving_a_sync_iteration_early_closes_the_iterator_before_the_loop_goes_on():
    produced: list[int] = []
    closed = threading.Event()

    async def numbers() -> AsyncIterator[int]:
        try:
            for n in range(100):
                produced.append(n)
                yield n
        finally:
            await asyncio.sleep(0.01)  # async cleanup, on the owner loop
            closed.set()

    seen = []
    for n in owner.iterate_sync(numbers()):
        seen.append(n)
        if n == 2:
            break
    assert seen == [0, 1, 2]
    assert closed.is_set(), "the iterator's cleanup ran before the for loop was left"
    assert produced == [0, 1, 2], "items are made only when asked for"


def test_an_error_in_the_consumer_also_closes_the_iterator():
    closed = threading.Event()

    async def endless() -> AsyncIterator[int]:
        try:
            while True:
                yield 1
        finally:
            closed.set()

    with pytest.raises(ZeroDivisionError):
        for _ in owner.iterate_sync(endless()):
            1 / 0  # noqa: B018 - the consumer fails mid-iteration
    assert closed.is_set()


def press_ctrl_c_during_a_sync_call(press: Callable[[], None]) -> None:
    """Block in ``run_sync`` on work that would take a minute while another thread calls ``press`` once the work
    started: the KeyboardInterrupt must come through within seconds and cancel the work on the owner loop."""
    started, cancelled = threading.Event(), threading.Event()

    async def wait_forever() -> None:
        started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    def presser_thread() -> None:
        started.wait(10)
        press()

    presser = threading.Thread(target=presser_thread)
    presser.start()
    begun = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        owner.run_sync(wait_forever())
    presser.join()
    assert time.monotonic() - begun < 10, "the Ctrl-C waited for the work to end by itself"
    assert cancelled.wait(15), "the coroutine on the owner loop was cancelled, not left running"


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_ctrl_c_during_a_sync_call_cancels_the_work_on_the_owner_loop():
    press_ctrl_c_during_a_sync_call(lambda: os.kill(os.getpid(), signal.SIGINT))


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals reach the main thread")
def test_a_ctrl_c_that_does_not_wake_the_waiting_thread_still_ends_the_call():
    """The signal lands while the caller is parked on the future: here it is delivered to the presser's thread, so
    its handler runs but the caller is never woken (as when it strikes just before the caller parks)."""

    def press_ctrl_c_elsewhere() -> None:
        time.sleep(0.3)  # the caller is parked by now
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    press_ctrl_c_during_a_sync_call(press_ctrl_c_elsewhere)


async def test_an_adopted_loop_runs_async_calls_directly_and_refuses_blocking_ones():
    caller = asyncio.get_running_loop()
    background = owner.get_loop()
    assert background is not caller
    owner.adopt(caller)
    try:
        assert owner.get_loop() is caller and owner.in_loop_thread()

        async def where() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
            return asyncio.get_running_loop(), threading.current_thread()

        assert await owner.run_async(where()) == (caller, threading.current_thread()), "no thread hop"
        coro = where()
        with pytest.raises(RuntimeError, match="async twin"):
            owner.run_sync(coro)  # it would block the loop that has to answer it
        assert coro.cr_frame is None, "the refused coroutine was closed, not left un-awaited"
    finally:
        owner._adopted = None  # this test's loop closes after it; a later test must not see it adopted


def test_the_background_loop_takes_over_again_once_the_adopted_loop_closed():
    handed = asyncio.new_event_loop()
    owner.adopt(handed)
    try:
        # adopted but not running (its thread is not in it): a blocking call would wait for nothing
        done = []
        worker = threading.Thread(target=lambda: done.append(_blocking_call_error()))
        worker.start()
        worker.join(10)
        assert done and "use_running_loop" in done[0]
    finally:
        handed.close()
    assert owner.adopted_loop() is None
    assert owner.get_loop() is not handed and owner.run_sync(asyncio.sleep(0, "back")) == "back"


def _blocking_call_error() -> str:
    try:
        owner.run_sync(asyncio.sleep(0))
    except RuntimeError as error:
        return str(error)
    return "no error"


def test_a_timeout_error_the_work_raises_is_its_own():
    async def times_out() -> None:
        raise TimeoutError("the work's own timeout")

    with pytest.raises(TimeoutError, match="the work's own timeout"):
        owner.run_sync(times_out())
