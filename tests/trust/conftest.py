"""The hostile rug-pull server (tests/servers/rug_pull_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.conftest import ROOT, free_port, start_http_server, stop_process

RUG_SERVER = str(ROOT / "tests" / "servers" / "rug_pull_server.py")


def rug_stdio(pulled: bool = False) -> dict[str, Any]:
    """The stdio config of the rug-pull server (``pulled``: it starts with its changed definitions)."""
    return {"command": sys.executable, "args": [RUG_SERVER], "env": {"RUG_PULLED": "1" if pulled else "0"}}


def rug_memory(pulled: bool = False) -> dict[str, Any]:
    """The in-process config of a new rug-pull server (the same server code, no process to start)."""
    from tests.servers.rug_pull_server import build_server

    return {"server": build_server(pulled)}


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
