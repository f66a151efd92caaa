"""The user-agent side without an ``authorize`` callable: the browser and the one-shot loopback listener,
and the checks on the redirect (``state``, ``iss``)."""

from __future__ import annotations

import threading
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx2
import pytest

import mcp_litellm as ml
from tests.auth.oauth_server import OAuthServer, follow, free_port


class FakeBrowser:
    """Stands in for ``webbrowser.open``: approves at the authorization server, then loads the redirect
    (after a stray request for /favicon.ico, as browsers do, and a forged redirect with a guessed
    state, as a hostile web page could send), from another thread."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.answers: list[tuple[str, int]] = []

    def __call__(self, url: str, *args: object, **kwargs: object) -> bool:
        self.opened.append(url)

        def browse() -> None:
            redirected = follow(url)
            parts = urlsplit(redirected)
            favicon = urlunsplit(parts._replace(path="/favicon.ico", query=""))
            self.answers.append(("favicon", httpx2.get(favicon, timeout=10).status_code))
            forged = urlunsplit(parts._replace(query="code=attacker-code&state=guessed"))
            self.answers.append(("forged", httpx2.get(forged, timeout=10).status_code))
            self.answers.append(("callback", httpx2.get(redirected, timeout=10).status_code))

        threading.Thread(target=browse, daemon=True).start()
        return True


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> FakeBrowser:
    fake = FakeBrowser()
    monkeypatch.delenv("MCP_LITELLM_NO_BROWSER", raising=False)
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setattr("webbrowser.open", fake)
    return fake


def test_browser_and_loopback_listener(oauth_server, browser, capsys):
    port = free_port()
    redirect_uri = f"http://127.0.0.1:{port}/oauth/done"
    with ml.Client("notes", "streamable", {"url": oauth_server.url, "oauth": {"redirect_uri": redirect_uri}}) as client:
        assert client.tool("add").execute({"a": 1, "b": 2}).text == "3"
    assert len(browser.opened) == 1
    assert parse_qs(urlsplit(browser.opened[0]).query)["redirect_uri"] == [redirect_uri]
    assert browser.answers == [("favicon", 404), ("forged", 400), ("callback", 200)]
    assert "opened your browser" in capsys.readouterr().err
    with pytest.raises(httpx2.ConnectError):  # one-shot: the listener is gone
        httpx2.get(redirect_uri, timeout=5)


def test_a_later_run_reuses_the_registered_redirect_port(oauth_server, browser):
    with ml.Client("notes", "streamable", {"url": oauth_server.url, "auth": "oauth"}) as client:
        client.tools()
    first = parse_qs(urlsplit(browser.opened[0]).query)["redirect_uri"]
    oauth_server.provider.revoke_all()
    with ml.Client("notes", "streamable", {"url": oauth_server.url, "auth": "oauth"}) as client:
        client.tools()
    assert len(browser.opened) == 2
    assert parse_qs(urlsplit(browser.opened[1]).query)["redirect_uri"] == first
    assert oauth_server.grants().count("register") == 1


def test_busy_redirect_port(oauth_server, browser):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(ml.AuthError, match="cannot listen for the browser's redirect"):
            ml.Client("notes", "streamable", {"url": oauth_server.url,
                                              "oauth": {"redirect_uri": f"http://127.0.0.1:{port}/cb"}})
    assert browser.opened == []


def test_iss_that_names_another_server_is_refused(oauth_server: OAuthServer):
    def mixed_up(url: str) -> str:
        parts = urlsplit(follow(url))
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        query["iss"] = "https://evil.example.com"
        return urlunsplit(parts._replace(query=urlencode(query)))

    with pytest.raises(ml.AuthError, match="iss does not name the authorization server"):
        ml.Client("notes", "streamable", {"url": oauth_server.url, "oauth": {"authorize": mixed_up}})
    assert "authorization_code" not in oauth_server.grants()


def test_iss_that_matches_is_accepted(oauth_server: OAuthServer):
    def with_iss(url: str) -> str:
        return follow(url) + f"&iss={oauth_server.base}/"

    with ml.Client("notes", "streamable", {"url": oauth_server.url, "oauth": {"authorize": with_iss}}) as client:
        assert client.tools()


async def test_async_authorize_and_async_client(oauth_server: OAuthServer):
    seen: list[str] = []

    async def authorize(url: str) -> str:
        seen.append(url)
        async with httpx2.AsyncClient() as http:
            answer = await http.get(url, follow_redirects=False)
        return str(answer.headers["location"])

    async with ml.Client("notes", "sse", {"url": oauth_server.sse_url, "oauth": {"authorize": authorize}},
                         start=False) as client:
        result = await (await client.atool("add")).aexecute({"a": 20, "b": 22})
    assert result.text == "42" and len(seen) == 1
