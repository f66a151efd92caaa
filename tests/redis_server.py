"""A real ``redis-server`` for the tests (Debian's package), started on a free port and stopped after.

Without the binary the tests that need it skip, saying how to install it; under CI (``$CI`` set) they fail
instead, since .ci/run installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.helpers.servers import free_port

__all__ = ["running_redis"]


def _binary() -> str:
    binary = shutil.which("redis-server")
    if binary is not None:
        return binary
    reason = "redis-server is not installed (apt-get install -y redis-server)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; .ci/run installs it, so under CI this is an error")
    pytest.skip(f"{reason}: the Redis token storage tests need a real Redis")


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def running_redis() -> Iterator[str]:
    """A fresh redis-server (no persistence) on a free port of 127.0.0.1; yields its ``redis://`` URL."""
    binary = _binary()
    port = free_port()
    process = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 15
        while not _ping(port):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start on port {port}")
            time.sleep(0.02)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
