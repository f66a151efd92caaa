"""Shared fixtures: real MCP servers on every transport, clean-up of every client made, the scripted model, a
process marker and recorded spans. Helpers (plain functions and classes) live in tests/helpers/."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.clients import client_factory
from tests.helpers.servers import (
    EVERYTHING,
    FIXTURE_SERVER,
    free_port,
    start_http_server,
    stop_process,
    transport_config,
)
from tests.helpers.spans import Spans, recording
from tests.scripted_llm.respx_mock import ScriptedLLM, litellm_respx

TRANSPORTS = ["stdio", "streamable", "sse", "memory"]


@pytest.fixture(scope="session")
def fixture_http() -> Iterator[dict[str, str]]:
    """The fixture server over streamable HTTP and over SSE (uvicorn on 127.0.0.1, ephemeral ports)."""
    urls: dict[str, str] = {}
    processes = []
    for transport, path in (("streamable-http", "/mcp"), ("sse", "/sse")):
        port = free_port()
        processes.append(start_http_server([sys.executable, str(FIXTURE_SERVER), transport, "--port", str(port)], port))
        urls[transport] = f"http://127.0.0.1:{port}{path}"
    yield urls
    for process in processes:
        stop_process(process)


@pytest.fixture
def make_client(request: pytest.FixtureRequest) -> Iterator[Callable[..., ml.Client]]:
    """Factory ``make_client(transport, **kwargs)`` for clients of the fixture server; all stopped after."""

    def build(transport: str = "stdio", name: str = "fixture", **kwargs: Any) -> ml.Client:
        urls = request.getfixturevalue("fixture_http") if transport in ("streamable", "sse") else None
        transport_type, config = transport_config(transport, urls)
        return ml.client(name, transport_type, config, **kwargs)

    with client_factory(build) as make:
        yield make


@pytest.fixture(params=TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> str:
    """Parametrizes a test over every transport of the fixture server."""
    return str(request.param)


@pytest.fixture(scope="session")
def everything_js() -> Path:
    """Path of @modelcontextprotocol/server-everything (installed by `npm ci --prefix tests/thirdparty`)."""
    if not EVERYTHING.exists():
        pytest.fail(f"server-everything is not installed at {EVERYTHING}; run: npm ci --prefix tests/thirdparty")
    return EVERYTHING


@pytest.fixture
def marker() -> str:
    """A unique tag for the command lines of the servers a test starts."""
    return f"mltest{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="session")
def fixture_tools() -> set[str]:
    """The names of the fixture server's tools (read from the server, so added tools need no test edits)."""
    import mcp_litellm as ml
    from tests.servers.fixture_server import build_server

    with ml.client("probe", "memory", {"server": build_server()}) as client:
        return {tool.name for tool in client.tools()}


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    """The scripted model (LiteLLM's async HTTP made visible to respx, client caches flushed); tests/features
    and tests/thirdparty use a queued one instead."""
    with litellm_respx() as router:
        yield ScriptedLLM(router)


@pytest.fixture
def spans() -> Iterator[Spans]:
    """Record spans during the test with a provider of its own (removed afterwards)."""
    with recording() as recorded:
        yield recorded
