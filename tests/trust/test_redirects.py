"""A redirect to another origin gets none of the configured secrets: two local HTTP servers on 127.0.0.1,
one redirecting, one (another origin) recording every header it receives."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

import mcp_litellm as ml
from mcp_litellm._transports.redirects import same_origin, without_foreign_credentials

SECRETS = {"Authorization": "Bearer s3cret-token", "X-API-Key": "k3y-value", "X-Custom": "custom-secret"}


class _Servers:
    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, str]]] = []  # (server, headers) of every request
        self.catcher = self._serve("catcher")
        self.redirector = self._serve("redirector")

    def _serve(self, role: str) -> ThreadingHTTPServer:
        servers = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                servers.seen.append((role, dict(self.headers.items())))
                if role == "redirector" and self.path.startswith("/same"):
                    location = f"http://127.0.0.1:{self.server.server_address[1]}/echo"
                elif role == "redirector" and not self.path.startswith("/echo"):
                    location = f"http://127.0.0.1:{servers.catcher.server_address[1]}/mcp"
                else:
                    location = None
                self.send_response(307 if location else 200)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", "2")
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            do_GET = do_POST = do_DELETE = _any

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    def url(self, role: str, path: str) -> str:
        server = self.catcher if role == "catcher" else self.redirector
        return f"http://127.0.0.1:{server.server_address[1]}{path}"

    def caught(self) -> list[dict[str, str]]:
        return [headers for role, headers in self.seen if role == "catcher"]

    def close(self) -> None:
        for server in (self.catcher, self.redirector):
            server.shutdown()
            server.server_close()


@pytest.fixture(scope="module")
def servers() -> Iterator[_Servers]:
    made = _Servers()
    yield made
    made.close()


def _leaked(headers: dict[str, str]) -> list[str]:
    return [value for value in SECRETS.values() if value in " ".join(headers.values())]


@pytest.mark.parametrize("transport", ["streamable", "sse"])
def test_an_mcp_client_sends_no_secret_to_the_origin_it_is_redirected_to(servers: _Servers, transport: str) -> None:
    servers.seen.clear()
    with pytest.raises(ml.TransportError):
        ml.client("redirected", transport, {"url": servers.url("redirector", "/mcp" if transport == "streamable"
                                                                       else "/sse"), "headers": SECRETS},
                  request_timeout=5)
    assert any(role == "redirector" for role, _ in servers.seen)  # the server was asked, with its secrets
    assert all(not _leaked(headers) for headers in servers.caught()), servers.caught()


async def _get(url: str, *, guarded: bool, endpoint: str) -> None:
    hooks = {"request": [without_foreign_credentials(endpoint, SECRETS)]} if guarded else {}
    async with httpx2.AsyncClient(headers=SECRETS, follow_redirects=True, event_hooks=hooks) as http:
        await http.get(url)


def test_even_a_client_that_follows_redirects_drops_the_secrets_off_origin(servers: _Servers) -> None:
    endpoint = servers.url("redirector", "/mcp")
    servers.seen.clear()
    asyncio.run(_get(endpoint, guarded=False, endpoint=endpoint))
    assert _leaked(servers.caught()[-1])  # what would happen without the hook: the API key follows
    servers.seen.clear()
    asyncio.run(_get(endpoint, guarded=True, endpoint=endpoint))
    assert servers.caught() and not _leaked(servers.caught()[-1]), servers.caught()
    servers.seen.clear()
    asyncio.run(_get(servers.url("redirector", "/same"), guarded=True, endpoint=endpoint))  # same origin: kept
    assert [role for role, _ in servers.seen] == ["redirector", "redirector"]
    assert sorted(_leaked(servers.seen[-1][1])) == sorted(SECRETS.values())


def test_same_origin_rules() -> None:
    endpoint = httpx2.URL("http://example.com/mcp")
    assert same_origin(endpoint, httpx2.URL("http://example.com:80/other"))
    assert same_origin(endpoint, httpx2.URL("https://example.com/mcp"))  # the upgrade, default ports
    assert not same_origin(endpoint, httpx2.URL("http://example.com:8080/mcp"))
    assert not same_origin(endpoint, httpx2.URL("http://evil.example.com/mcp"))
    assert not same_origin(httpx2.URL("https://example.com/mcp"), httpx2.URL("http://example.com/mcp"))
