"""The pool tests' server (tests/servers/pool_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator

import pytest

from tests.helpers.entries import POOL_SERVER
from tests.helpers.servers import free_port, start_http_server, stop_process


@pytest.fixture(scope="session")
def pool_http() -> Iterator[str]:
    """The pool server over streamable HTTP (its URL)."""
    port = free_port()
    process = start_http_server([sys.executable, str(POOL_SERVER), "streamable-http", "--port", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop_process(process)


@pytest.fixture
def marker() -> str:
    """A unique tag for the command lines of the servers a test starts."""
    return f"mlpool{uuid.uuid4().hex[:10]}"
