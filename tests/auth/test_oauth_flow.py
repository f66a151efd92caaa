"""OAuth 2.1 against a real OAuth-protected MCP server (tests/auth/oauth_server.py), driven through
``oauth.authorize`` (the server approves at once, so following the URL with one GET is the browser)."""

from __future__ import annotations

import asyncio
import json
import logging
import stat
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import pytest

import mcp_litellm as ml
from tests.auth.oauth_server import APP_CLIENT, APP_REDIRECT, CC_CLIENT, OAuthServer, follow, free_port
from tests.helpers.oauth import Browser, add, make

TRANSPORTS = ["streamable", "sse"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_full_flow_then_tokens_reused_from_disk(oauth_server, token_dir, transport):
    browser = Browser()
    with make(oauth_server, transport, authorize=browser) as client:
        assert add(client) == "42"
    assert len(browser.urls) == 1
    assert oauth_server.grants() == ["register", "authorize", "authorization_code"]
    query = parse_qs(urlsplit(browser.urls[0]).query)
    assert query["code_challenge_method"] == ["S256"] and query["state"][0]

    files = list(token_dir.iterdir())
    assert len(files) == 1
    assert stat.S_IMODE(token_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    stored = json.loads(files[0].read_text())
    entry = stored["issuers"][stored["active"]]
    assert stored["active"] == f"{oauth_server.base}/"
    assert entry["expires_at"] > time.time() + 3000

    second = Browser()
    with make(oauth_server, transport, authorize=second) as client:  # a new client, as after a restart
        assert add(client) == "42"
    assert second.urls == []
    assert oauth_server.grants() == ["register", "authorize", "authorization_code"]


def test_refresh_before_expiry_within_a_run_and_across_restarts(oauth_server):
    oauth_server.provider.token_ttl = 2
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
        time.sleep(2.1)
        assert add(client) == "42"  # refreshed before the request, no 401 round
    grants = oauth_server.grants()
    assert grants[:3] == ["register", "authorize", "authorization_code"] and grants[-1] == "refresh_token"
    assert set(grants[3:]) == {"refresh_token"}  # (more than one only on a machine slow enough to need it)
    time.sleep(2.1)
    with make(oauth_server, authorize=browser) as client:  # the stored token has expired meanwhile
        assert add(client) == "42"
    assert len(browser.urls) == 1
    assert oauth_server.grants()[-1] == "refresh_token"
    assert oauth_server.grants().count("authorize") == 1


def test_a_short_lived_token_is_refreshed_before_the_servers_clock_runs_out(oauth_server):
    # The server rounds expiry down and the response takes time: its clock runs out about a second before
    # the client's. With a margin of 10% of 4 s the client sent the token in that gap, got a 401, and the
    # SDK asked the person to authorize again; the margin's floor refreshes it first.
    oauth_server.provider.token_ttl, oauth_server.provider.expiry_early = 4, 1.0
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
        time.sleep(3.2)  # the server has expired the token (at 3 s at the latest); the client reckons 4 s
        assert add(client) == "42"
    assert len(browser.urls) == 1
    assert oauth_server.grants().count("authorize") == 1
    assert oauth_server.grants()[-1] == "refresh_token"


def test_revoked_tokens_start_one_new_authorization(oauth_server):
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
        oauth_server.provider.revoke_all()
        assert add(client) == "42"
    assert len(browser.urls) == 2
    assert oauth_server.grants().count("authorization_code") == 2


def test_expired_token_with_revoked_refresh_token_authorizes_again_then_fails(oauth_server):
    # 3 s tokens: a freshly issued one must outlive its first use on a loaded machine (with 1 s ones, a slow
    # round trip let the new token expire before use, and a third authorization followed)
    oauth_server.provider.token_ttl = 3
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
        oauth_server.provider.revoke_all()
        time.sleep(3.1)
        assert add(client) == "42"  # the refresh fails, one new authorization succeeds
        assert len(browser.urls) == 2
        oauth_server.provider.revoke_all()
        oauth_server.provider.deny = True
        time.sleep(3.1)
        with pytest.raises(ml.AuthError) as caught:
            add(client)
    message = str(caught.value)
    assert "server 'notes'" in message and "access_denied" in message
    assert "refresh token had been rejected" in message
    assert len(browser.urls) == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_access_denied(oauth_server, transport):
    oauth_server.provider.deny = True
    client = make(oauth_server, transport, authorize=Browser())
    started = time.monotonic()
    with pytest.raises(ml.AuthError) as caught:
        client.start()
    assert time.monotonic() - started < 10
    message = str(caught.value)
    assert message.startswith("server 'notes': OAuth with ")
    assert "error='access_denied'" in message and "authorize again and approve" in message
    assert isinstance(caught.value, ml.TransportError)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_failure_in_the_middle_of_a_session_fails_the_call_without_hanging(oauth_server, transport):
    with make(oauth_server, transport, authorize=Browser(), request_timeout=30) as client:
        assert add(client) == "42"
        oauth_server.provider.revoke_all()
        oauth_server.provider.deny = True
        started = time.monotonic()
        with pytest.raises(ml.AuthError, match="access_denied"):
            add(client)
        assert time.monotonic() - started < 10


def test_state_mismatch(oauth_server):
    def forged(url: str) -> str:
        parts = urlsplit(follow(url))
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        query["state"] = "not-the-state"
        return urlunsplit(parts._replace(query=urlencode(query)))

    with pytest.raises(ml.AuthError, match="state does not match"):
        make(oauth_server, authorize=forged).start()
    assert "authorization_code" not in oauth_server.grants()


def test_wrong_client_secret(oauth_server):
    client = make(oauth_server, authorize=Browser(), client_id=APP_CLIENT[0], client_secret="wrong-secret-123456",
                  redirect_uri=APP_REDIRECT)
    with pytest.raises(ml.AuthError) as caught:
        client.start()
    assert "refused the pre-registered client 'app-client'" in str(caught.value)
    assert "oauth.client_secret" in str(caught.value)
    assert "wrong-secret-123456" not in str(caught.value)


def test_pre_registered_client(oauth_server):
    with make(oauth_server, authorize=Browser(), client_id=APP_CLIENT[0], client_secret=APP_CLIENT[1],
              redirect_uri=APP_REDIRECT) as client:
        assert add(client) == "42"
    assert "register" not in oauth_server.grants()


def test_authorization_server_down():
    dead = free_port()
    server = OAuthServer(issuer_port=dead).start()
    try:
        started = time.monotonic()
        with pytest.raises(ml.AuthError) as caught:
            make(server, authorize=Browser()).start()
        assert time.monotonic() - started < 15
        assert f"127.0.0.1:{dead}" in str(caught.value)
        assert "authorization server" in str(caught.value)
    finally:
        server.stop()


def test_storage_not_writable(oauth_server, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, authorize=Browser(), storage=str(blocker / "tokens")).start()
    message = str(caught.value)
    assert "cannot store the OAuth tokens" in message and "oauth.storage" in message


def test_timeout_waiting_for_the_user(oauth_server):
    def never(url: str) -> str:
        time.sleep(30)
        return ""

    started = time.monotonic()
    with pytest.raises(ml.AuthError, match=r"timed out after 0.5s waiting"):
        make(oauth_server, authorize=never, timeout=0.5).start()
    assert time.monotonic() - started < 10


async def authorize_slowly(url: str) -> str:
    """A user who takes 2.5 s to authorize (longer than the tests' 1 s request timeout)."""
    await asyncio.sleep(2.5)
    return follow(url)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_request_timeout_waits_for_the_user(oauth_server, transport):
    with make(oauth_server, transport, authorize=authorize_slowly, request_timeout=1.0) as client:
        assert add(client) == "42"
        oauth_server.provider.revoke_all()
        assert add(client) == "42"  # in the middle of a session too


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_calls_made_while_the_user_authorizes_wait_for_it_instead_of_timing_out(oauth_server, transport):
    with make(oauth_server, transport, authorize=authorize_slowly, request_timeout=1.0) as client:
        oauth_server.provider.revoke_all()

        async def together() -> list[str]:
            first = asyncio.ensure_future(client.tool("add").aexecute({"a": 2, "b": 40}))  # starts the authorization
            await asyncio.sleep(0.3)
            later = [client.tool("add").aexecute({"a": 1, "b": i}) for i in range(3)]  # wait behind it
            return [r.text for r in await asyncio.gather(first, *later)]

        assert asyncio.run(together()) == ["42", "1", "2", "3"]
    assert oauth_server.grants().count("authorization_code") == 2  # the first connect, and one more


def test_authorize_callable_that_raises(oauth_server):
    def broken(url: str) -> str:
        raise RuntimeError("boom")

    with pytest.raises(ml.AuthError, match="the authorize callable raised RuntimeError"):
        make(oauth_server, authorize=broken).start()


def test_memory_storage_keeps_nothing_on_disk(oauth_server, token_dir):
    with make(oauth_server, authorize=Browser(), storage="memory") as client:
        assert add(client) == "42"
        client.restart()  # the same client reconnects without a new authorization
        assert add(client) == "42"
    assert oauth_server.grants().count("authorize") == 1
    assert not token_dir.exists()


def test_custom_token_storage_object(oauth_server):
    class Storage:
        def __init__(self) -> None:
            self.tokens: Any = None
            self.info: Any = None

        async def get_tokens(self) -> Any:
            return self.tokens

        async def set_tokens(self, tokens: Any) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> Any:
            return self.info

        async def set_client_info(self, info: Any) -> None:
            self.info = info

    storage = Storage()
    with make(oauth_server, authorize=Browser(), storage=storage) as client:
        assert add(client) == "42"
    assert storage.tokens is not None and storage.info is not None


def test_client_credentials(oauth_server):
    with make(oauth_server, grant="client_credentials", client_id=CC_CLIENT[0], client_secret=CC_CLIENT[1]) as client:
        assert add(client) == "42"
    assert oauth_server.grants() == ["client_credentials"]
    with pytest.raises(ml.AuthError, match="refused the pre-registered client 'machine-client'"):
        make(oauth_server, grant="client_credentials", client_id=CC_CLIENT[0], client_secret="nope-nope-nope",
             storage="memory").start()


def test_private_key_jwt(oauth_server, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    oauth_server.jwt_public_key = key.public_key()
    key_file = tmp_path / "key.pem"
    key_file.write_text(pem)
    with make(oauth_server, grant="private_key_jwt", client_id=CC_CLIENT[0], private_key=str(key_file),
              signing_algorithm="ES256") as client:
        assert add(client) == "42"
    assert oauth_server.grants() == ["client_credentials"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_no_secret_reaches_logs_reprs_or_errors(oauth_server, caplog, transport):
    caplog.set_level(logging.DEBUG)
    oauth_server.provider.token_ttl = 2
    browser = Browser()
    errors: list[str] = []
    with make(oauth_server, transport, grant="client_credentials", client_id=CC_CLIENT[0],
              client_secret=CC_CLIENT[1], storage="memory") as machine:
        assert add(machine) == "42"
    with make(oauth_server, transport, authorize=browser) as client:
        assert add(client) == "42"
        time.sleep(2.1)
        assert add(client) == "42"  # a refresh
        reprs = [repr(client), repr(client.config)]
        oauth_server.provider.revoke_all()
        oauth_server.provider.deny = True
        with pytest.raises(ml.AuthError) as caught:
            add(client)
        errors.append(str(caught.value))
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, name="other", authorize=Browser(), client_id=APP_CLIENT[0],
             client_secret=APP_CLIENT[1] + "x", redirect_uri=APP_REDIRECT, storage="memory").start()
    errors.append(str(caught.value))

    import base64

    secrets: list[str] = [APP_CLIENT[1], APP_CLIENT[1] + "x", CC_CLIENT[1],
                          base64.b64encode(f"{CC_CLIENT[0]}:{CC_CLIENT[1]}".encode()).decode()]
    for token in oauth_server.provider.issued:
        secrets.append(token.access_token)
        if token.refresh_token:
            secrets.append(token.refresh_token)
    secrets += oauth_server.provider.code_values
    for body in oauth_server.token_bodies:
        secrets += parse_qs(body).get("code_verifier", [])
    secrets += [c.client_secret for c in oauth_server.provider.clients.values() if c.client_secret]
    assert len(oauth_server.provider.issued) >= 2 and oauth_server.provider.code_values and len(secrets) > 8
    assert any("code_verifier" in body for body in oauth_server.token_bodies)
    logged = caplog.text
    assert "HTTP Request" in logged or "Sending client message" in logged  # DEBUG really was captured
    for secret in secrets:
        assert secret not in logged
        assert all(secret not in text for text in reprs + errors)


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_2025_03_26_server_with_its_authorization_server_under_a_path(transport):
    # No protected-resource metadata; the metadata at the origin names the issuer <origin>/oauth. The SDK
    # alone refuses it (RFC 8414 issuer check); a same-origin issuer is accepted on this legacy path only.
    server = OAuthServer(legacy=True).start()
    try:
        browser = Browser()
        with make(server, transport, authorize=browser) as client:
            assert add(client) == "42"
        assert urlsplit(browser.urls[0]).path == "/oauth/authorize"
        assert server.grants() == ["register", "authorize", "authorization_code"]
        server.provider.revoke_all()
        with make(server, transport, authorize=browser) as client:  # the stored registration is reused
            assert add(client) == "42"
        assert server.grants().count("register") == 1
    finally:
        server.stop()


def test_authorization_server_on_another_origin_is_still_refused_on_the_legacy_path():
    server = OAuthServer(legacy=True).start()
    try:
        provider: Any = None
        from mcp_litellm._transports.oauth.factory import oauth_auth
        from mcp_litellm._transports.oauth.settings import oauth_settings

        settings = oauth_settings({"auth": "oauth"})
        assert settings is not None
        provider = oauth_auth(server.url, settings, transport="streamable")
        from mcp.client.auth import OAuthFlowError

        assert provider._legacy_issuer_in(OAuthFlowError(
            f"Authorization server metadata issuer mismatch: https://evil.example.com/oauth != {server.base}")) is None
        assert provider._legacy_issuer_in(OAuthFlowError(
            f"Authorization server metadata issuer mismatch: {server.base}/oauth != {server.base}")) == \
            f"{server.base}/oauth"
    finally:
        server.stop()


def test_new_authorization_in_a_later_run_reuses_the_stored_registration(oauth_server):
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
    oauth_server.provider.revoke_all()
    with make(oauth_server, authorize=browser) as client:  # new provider: stored client, rejected tokens
        assert add(client) == "42"
    redirects = [parse_qs(urlsplit(url).query)["redirect_uri"] for url in browser.urls]
    assert len(redirects) == 2 and redirects[0] == redirects[1]  # the registered redirect URI
    assert oauth_server.grants().count("register") == 1


def test_a_token_refreshed_by_another_client_is_picked_up_from_the_file(oauth_server):
    oauth_server.provider.token_ttl = 2
    browser = Browser()
    first, second = make(oauth_server, name="a", authorize=browser), make(oauth_server, name="b", authorize=browser)
    with first, second:
        assert add(first) == "42" and add(second) == "42"
        time.sleep(2.1)
        assert add(first) == "42"  # refreshes; the server rotates the refresh token
        assert add(second) == "42"  # uses the refreshed token from the file instead of the spent refresh token
    assert len(browser.urls) == 1  # the second client did not spend the rotated refresh token
    assert "refresh_token" in oauth_server.grants()


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_authorization_server_going_down_in_the_middle_of_a_session(transport):
    authorization = OAuthServer().start()
    resource = OAuthServer(issuer_port=authorization.port, provider=authorization.provider).start()
    try:
        client = make(resource, transport, authorize=Browser(), request_timeout=30)
        with client:
            assert add(client) == "42"
            assert authorization.grants() == ["register", "authorize", "authorization_code"]
            authorization.stop()
            resource.provider.revoke_all()
            started = time.monotonic()
            with pytest.raises(ml.AuthError) as caught:
                add(client)
            assert time.monotonic() - started < 10  # not the 30 s request timeout
        assert f"127.0.0.1:{authorization.port}" in str(caught.value)
        assert "check that the authorization server is up" in str(caught.value)
    finally:
        resource.stop()


def test_a_corrupt_token_file_means_authorizing_again(oauth_server, token_dir, caplog):
    browser = Browser()
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
    [path] = list(token_dir.iterdir())
    path.write_text("{not json")
    with make(oauth_server, authorize=browser) as client:
        assert add(client) == "42"
    assert len(browser.urls) == 2
    assert "ignoring the unreadable OAuth token file" in caplog.text
    assert json.loads(path.read_text())["issuers"]  # rewritten whole
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
