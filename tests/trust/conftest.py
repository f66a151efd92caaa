"""The hostile rug-pull server (tests/servers/rug_pull_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.entries import RUG_SERVER, rug_memory, rug_stdio
from tests.helpers.servers import free_port, start_http_server, stop_process


@pytest.fixture
def make_rug(tmp_path: Path) -> Iterator[Callable[..., ml.Client]]:
    """``make_rug(name="rug", pulled=False, stdio=False, **options)``: a started client of a new rug-pull
    server (in-process, or over stdio); all stopped after the test."""
    made: list[ml.Client] = []

    def make(name: str = "rug", pulled: bool = False, stdio: bool = False, **options: Any) -> ml.Client:
        client = (ml.client(name, "stdio", rug_stdio(pulled), **options) if stdio else
                  ml.client(name, "memory", rug_memory(pulled), **options))
        made.append(client)
        return client

    yield make
    for client in made:
        client.stop()


@pytest.fixture
def rug_http() -> Iterator[str]:
    """A fresh rug-pull server over streamable HTTP (its state changes, so one per test); its URL."""
    port = free_port()
    process = start_http_server([sys.executable, RUG_SERVER, "streamable-http", "--port", str(port)], port)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process)
