"""The MCP Apps test server (tests/helpers/apps_server.py) over stdio and streamable HTTP, and clients of it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.clients import client_factory
from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process

APPS_TRANSPORTS = ["stdio", "streamable"]


@pytest.fixture(scope="session")
def apps_http() -> Iterator[str]:
    port = free_port()
    process = start_http_server([sys.executable, "-m", "tests.helpers.apps_server", "http", str(port)], port,
                                env={"PYTHONPATH": str(ROOT)})
    yield f"http://127.0.0.1:{port}/mcp"
    stop_process(process)


@pytest.fixture
def apps_client(request: pytest.FixtureRequest) -> Iterator[Callable[..., ml.Client]]:
    """``apps_client(transport, **kwargs)``: a client of the apps server (``apps=True`` unless given)."""

    def build(transport: str = "stdio", name: str = "apps", **kwargs: Any) -> ml.Client:
        kwargs.setdefault("apps", True)
        if transport == "stdio":
            config: dict[str, Any] = {"command": sys.executable, "args": ["-m", "tests.helpers.apps_server"],
                                      "cwd": str(ROOT)}
            return ml.client(name, "stdio", config, **kwargs)
        return ml.client(name, "streamable", {"url": request.getfixturevalue("apps_http")}, **kwargs)

    with client_factory(build) as make:
        yield make


@pytest.fixture(params=APPS_TRANSPORTS)
def apps_transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)
