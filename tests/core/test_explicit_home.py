"""Which loop a call runs on is said at the call site (issue 33): ``run_sync(coro, home=...)`` /
``run_async(coro, home=...)``, never found by reading the coroutine's frame."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import mcp_litellm
from mcp_litellm._client.session.loop import ELSEWHERE, get_loop, run_async, run_sync


class Owner:
    """Looks like a client to a frame reader (``_session_loop``), but says nothing at the call site."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def _session_loop(self) -> asyncio.AbstractEventLoop:
        return self.loop

    async def where(self) -> asyncio.AbstractEventLoop:
        return asyncio.get_running_loop()


def _loop_in_thread() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    return loop, thread


def test_the_home_is_the_argument_not_the_coroutines_self():
    loop, thread = _loop_in_thread()
    try:
        owner = Owner(loop)
        assert run_sync(owner.where(), home=loop) is loop
        assert run_sync(owner.where()) is get_loop()  # no home given: not a client's work, whatever self is
        assert run_sync(owner.where(), home=ELSEWHERE) is get_loop()

        async def from_async() -> tuple[asyncio.AbstractEventLoop, asyncio.AbstractEventLoop]:
            return await run_async(owner.where(), home=loop), await run_async(owner.where(), home=None)

        there, here = asyncio.run(from_async())
        assert there is loop and here is not loop  # None: no session yet, so the caller's loop
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()


def test_no_module_reads_a_coroutines_frame():
    root = Path(mcp_litellm.__file__).parent
    assert [p.name for p in root.rglob("*.py") if "cr_frame" in p.read_text(encoding="utf-8")] == []


def test_the_client_features_are_installed_by_the_package_root_only():
    """No import side effect (issue 33, §5.5): importing ``handlers`` or ``_client.features`` installs nothing;
    the package root wires the default factory, explicitly."""
    root = Path(mcp_litellm.__file__).parent
    calls = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")
                   if "install_features(" in p.read_text(encoding="utf-8").replace("def install_features(", ""))
    assert calls == ["__init__.py"]
