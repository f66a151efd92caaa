"""OAuth test helpers over tests/auth/oauth_server.py: a browser that approves at once, an OAuth client of the
server, and ``mcp-litellm login`` run as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import mcp_litellm as ml
from tests.auth.oauth_server import OAuthServer, follow


class Browser:
    """An ``authorize`` callable that follows the URL (what a user approving in a browser does)."""

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.redirects: list[str] = []

    def __call__(self, url: str) -> str:
        self.urls.append(url)
        redirected = follow(url)
        self.redirects.append(redirected)
        return redirected


def make(server: OAuthServer, transport: str = "streamable", *, name: str = "notes", request_timeout: float = 20,
         **oauth: Any) -> ml.Client:
    url = server.url if transport == "streamable" else server.sse_url
    if ("client_secret" in oauth or "private_key" in oauth) and "issuer" not in oauth:
        oauth["issuer"] = server.issuer  # required with a secret or key: where they may go
    return ml.Client(name, transport, {"url": url, "oauth": oauth}, request_timeout=request_timeout, start=False)


def add(client: ml.Client) -> str:
    return client.tool("add").execute({"a": 2, "b": 40}).text


FAKE_BROWSER = Path(__file__).resolve().parent.parent / "auth" / "fake_browser.py"


def env(token_dir: Path, *, browser: bool = False) -> dict[str, str]:
    values = {**os.environ, "MCP_LITELLM_OAUTH_DIR": str(token_dir), "MCP_LITELLM_NO_BROWSER": "1",
              "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if browser:
        del values["MCP_LITELLM_NO_BROWSER"]
        values.update(DISPLAY=":99", BROWSER=f"{sys.executable} {FAKE_BROWSER} %s")
    return values


def login(cfg: str, token_dir: Path, *, paste: bool) -> tuple[int, str]:
    """Run ``login notes``: answer its prompt by pasting the redirect, or let the fake browser do it all."""
    process = subprocess.Popen([sys.executable, "-m", "mcp_litellm", "login", "notes", "-c", cfg],
                               stdin=subprocess.PIPE, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                               env=env(token_dir, browser=not paste))
    assert process.stdin is not None and process.stderr is not None
    killer = threading.Timer(60, process.kill)
    killer.start()
    try:
        seen: list[str] = []
        for line in process.stderr:
            seen.append(line)
            if paste and line.startswith("  http://"):
                process.stdin.write(follow(line.strip()) + "\n")
                process.stdin.flush()
                break
        seen.append(process.stderr.read())
        process.wait(60)
        return process.returncode, "".join(seen)
    finally:
        killer.cancel()
        if process.poll() is None:
            process.kill()

def raw_values(redis_url: str) -> dict[str, bytes]:
    import redis

    with redis.Redis.from_url(redis_url) as connection:
        return {key.decode(): connection.get(key) for key in connection.keys("mcp-litellm:oauth:*")
                if not key.endswith(b":lock")}


def stored_document(redis_url: str, server: OAuthServer) -> dict[str, Any]:
    [value] = [v for k, v in raw_values(redis_url).items() if f"127.0.0.1_{server.port}" in k]
    document: dict[str, Any] = json.loads(value)
    return document


def finish(process: subprocess.Popen[str]) -> str:
    try:
        out, err = process.communicate(timeout=90)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, (out, err[-3000:])
    return out
