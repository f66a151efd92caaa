"""The pool tests' server (tests/servers/pool_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import ROOT, free_port, start_http_server, stop_process

POOL_SERVER = ROOT / "tests" / "servers" / "pool_server.py"


def stdio_entry(marker: str, **options: Any) -> dict[str, Any]:
    """A stdio config entry for the pool server, tagged with ``marker`` on its command line."""
    return {"command": sys.executable, "args": [str(POOL_SERVER), "--name", marker], **options}


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
