"""Where the test servers live, and starting and stopping them: free ports, HTTP server subprocesses, an ASGI
app on a real uvicorn in a thread, and the fixture server's config for each transport."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent


FIXTURE_SERVER = ROOT / "tests" / "servers" / "fixture_server.py"


EVERYTHING = ROOT / "tests/thirdparty/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early with code {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"server did not listen on port {port} within {timeout}s")


def start_http_server(args: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start an HTTP MCP server subprocess and wait until it accepts connections."""
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})}, start_new_session=True)
    try:
        wait_for_port(port, process)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process


class UvicornThread:
    """An ASGI ``app`` served by a real uvicorn on 127.0.0.1 (``port``, or a free one) in a daemon thread.

    ``with UvicornThread(app) as served:`` starts it and waits until it listens (``served.url`` is its base
    URL), and stops it on leaving; ``start()``/``stop()`` do the same by hand. ``options`` go to
    ``uvicorn.Config`` (``log_level`` is ``"critical"`` unless given)."""

    def __init__(self, app: Any, port: int | None = None, **options: Any) -> None:
        import uvicorn

        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port,
                                                    **{"log_level": "critical", **options}))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self, timeout: float = 10.0) -> UvicornThread:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the test server on port {self.port} did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> UvicornThread:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def stop_process(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def transport_config(transport: str, urls: dict[str, str] | None = None) -> tuple[str, dict[str, Any]]:
    """``(transport_type, config)`` reaching the fixture server over ``transport``."""
    if transport == "stdio":
        return "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)]}
    if transport == "memory":
        from tests.servers.fixture_server import build_server

        return "memory", {"server": build_server()}
    assert urls is not None
    if transport == "streamable":
        return "streamable", {"url": urls["streamable-http"]}
    return "sse", {"url": urls["sse"]}
