"""What must not leak from an OAuth flow or a URL: a password in a URL's user information, an authorization
code echoed later, a server's escape sequences on the terminal; and the redirect listener bound on every
family its URI names."""

from __future__ import annotations

import logging
import socket
import traceback
from urllib.parse import parse_qs, quote, urlsplit

import pytest

import mcp_litellm as ml
from mcp_litellm._core.clean_text import clean
from mcp_litellm._core.redact import redact_text, redact_url
from mcp_litellm._transports.oauth.user_agent import _Listener
from tests.auth.oauth_server import follow, free_port

PASSWORD = "hunter2-very-secret"


def test_a_password_in_a_urls_user_information_is_masked():
    assert redact_url(f"https://alice:{PASSWORD}@example.test/mcp?x=1") == "https://alice:***@example.test/mcp?x=1"
    assert redact_url(f"see http://bob:{PASSWORD}@h:8080/p and more") == "see http://bob:***@h:8080/p and more"
    assert redact_url("mailto:someone@example.test") == "mailto:someone@example.test"  # no password: as it is
    assert redact_url("https://user@example.test/") == "https://user@example.test/"


def test_a_url_password_is_in_no_repr_error_traceback_or_log_line(caplog):
    port = free_port()  # nothing listens there
    client = ml.Client("withpass", "streamable", {"url": f"http://alice:{PASSWORD}@127.0.0.1:{port}/mcp"},
                       request_timeout=5, start=False)
    caplog.set_level(logging.DEBUG)
    assert PASSWORD not in repr(client)
    with pytest.raises(ml.TransportError) as caught:
        client.start()
    client.stop()
    shown = "".join(traceback.format_exception(caught.value))
    assert "127.0.0.1" in shown and PASSWORD not in shown
    assert all(PASSWORD not in record.getMessage() for record in caplog.records)


def test_an_authorization_code_is_masked_wherever_it_shows_up_later(oauth_server):
    seen: list[str] = []

    def authorize(url: str) -> str:
        redirected = follow(url)
        seen.append(parse_qs(urlsplit(redirected).query)["code"][0])
        return redirected

    with ml.client("notes", "streamable", {"url": oauth_server.url, "oauth": {"authorize": authorize}}) as client:
        assert client.tool("add").execute({"a": 1, "b": 2}).text == "3"
    code = seen[0]
    assert len(code) >= 8
    assert redact_text(f"the server said: invalid code {code}") == "the server said: invalid code ***"
    verifier = next(parse_qs(body)["code_verifier"][0] for body in oauth_server.token_bodies if "code_verifier" in body)
    assert redact_text(f"echoed: code_verifier {verifier}") == "echoed: code_verifier ***"


def test_escape_sequences_in_an_error_description_never_reach_the_terminal(oauth_server):
    description = "\x1b[2J\x1b[31mpwned\x07 \x9b31m"

    def authorize(url: str) -> str:
        state = parse_qs(urlsplit(url).query)["state"][0]
        redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
        return f"{redirect}?error=invalid_request&error_description={quote(description)}&state={state}"

    with pytest.raises(ml.AuthError) as caught, \
            ml.client("notes", "streamable", {"url": oauth_server.url, "oauth": {"authorize": authorize}}) as client:
        client.tools()
    message = str(caught.value)
    assert "pwned" in message and "\x1b" not in message and "\x07" not in message and "\x9b" not in message
    assert clean("a\tb\nc\x1b[0m\x00") == "a\tb\nc[0m"


def _ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


async def test_a_localhost_redirect_listener_holds_both_loopback_families():
    port = free_port()
    listener = _Listener(f"http://localhost:{port}/oauth/done", "test")
    await listener.start()
    try:
        families = [socket.AF_INET, socket.AF_INET6] if _ipv6() else [socket.AF_INET]
        for family in families:  # another local user cannot take the port on either family
            with socket.socket(family) as sock, pytest.raises(OSError):
                sock.bind(("127.0.0.1" if family == socket.AF_INET else "::1", port))
    finally:
        await listener.close()
    plain = _Listener(f"http://127.0.0.1:{port}/cb", "test")
    assert plain.hosts == ["127.0.0.1"]
