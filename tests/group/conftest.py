"""Helpers for the group and CLI tests: fixture-server config entries and a process-table scan."""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURE_SERVER


def fixture_entry(name: str, marker: str, **options: Any) -> dict[str, Any]:
    """A stdio config entry for the fixture server, tagged with ``marker`` on its command line."""
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER), "--name", f"{name}-{marker}"], **options}


def processes_with(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def wait_no_processes(marker: str, timeout: float = 10.0) -> list[int]:
    """Wait until no process carries ``marker``; returns what is left (empty on success)."""
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


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
