"""How the client authenticates at the token endpoint (``token_endpoint_auth_method``), and what the
``invalid_client`` error says, against the OAuth test server (tests/auth/oauth_server.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from urllib.parse import parse_qs

import pytest
from mcp.shared.auth import OAuthClientInformationFull

import mcp_litellm as ml
from tests.auth.oauth_server import APP_CLIENT, APP_REDIRECT, CC_CLIENT, OAuthServer
from tests.helpers.oauth import Browser, add, make


@pytest.fixture
def post_only() -> Iterator[OAuthServer]:
    """A server whose authorization server accepts client secrets only as client_secret_post."""
    server = OAuthServer(auth_methods=("client_secret_post", "none")).start()
    try:
        yield server
    finally:
        server.stop()


def token_requests(server: OAuthServer, grant: str = "authorization_code") -> list[tuple[dict[str, str], str]]:
    """``(form, Authorization header)`` of each token request of ``grant`` the server received."""
    forms = [{k: v[0] for k, v in parse_qs(body).items()} for body in server.token_bodies]
    return [(form, headers.get("authorization", "")) for form, headers in zip(forms, server.token_headers, strict=True)
            if form.get("grant_type") == grant]


def registered(server: OAuthServer) -> list[OAuthClientInformationFull]:
    return [c for c in server.provider.clients.values() if c.client_id != APP_CLIENT[0]]


def test_dynamic_registration_asks_for_a_public_client(oauth_server):
    with make(oauth_server, authorize=Browser()) as client:
        assert add(client) == "42"
    [client_info] = registered(oauth_server)
    assert client_info.token_endpoint_auth_method == "none" and client_info.client_secret is None
    [(form, authorization)] = token_requests(oauth_server)
    assert "client_secret" not in form and not authorization


def test_pre_registered_client_with_a_server_that_accepts_only_client_secret_post(post_only):
    with make(post_only, authorize=Browser(), client_id=APP_CLIENT[0], client_secret=APP_CLIENT[1],
              redirect_uri=APP_REDIRECT, storage="memory") as client:
        assert add(client) == "42"
    [(form, authorization)] = token_requests(post_only)
    assert form["client_secret"] == APP_CLIENT[1] and not authorization


def test_client_credentials_with_a_server_that_accepts_only_client_secret_post(post_only):
    with make(post_only, grant="client_credentials", client_id=CC_CLIENT[0], client_secret=CC_CLIENT[1],
              storage="memory") as client:
        assert add(client) == "42"
    [(form, authorization)] = token_requests(post_only, "client_credentials")
    assert form["client_secret"] == CC_CLIENT[1] and not authorization


def test_a_registration_answered_without_its_method_sends_the_secret_as_the_server_supports(token_dir):
    server = OAuthServer(auth_methods=("client_secret_post",), hide_registered_method=True).start()
    try:
        with make(server, authorize=Browser()) as client:
            assert add(client) == "42"
        [client_info] = registered(server)
        [(form, authorization)] = token_requests(server)
        assert form["client_secret"] == client_info.client_secret and not authorization
        [stored_file] = token_dir.iterdir()
        [entry] = json.loads(stored_file.read_text())["issuers"].values()
        assert entry["client_info"]["token_endpoint_auth_method"] == "client_secret_post"  # kept for later runs
    finally:
        server.stop()


def test_configured_token_endpoint_auth_method(oauth_server):
    # The server advertises both methods, but has this client on file for client_secret_post only.
    oauth_server.provider.clients[APP_CLIENT[0]].token_endpoint_auth_method = "client_secret_post"
    pre_registered = {"client_id": APP_CLIENT[0], "client_secret": APP_CLIENT[1], "redirect_uri": APP_REDIRECT,
                      "storage": "memory"}
    with pytest.raises(ml.AuthError) as caught:  # client_secret_basic, chosen from the metadata, is refused
        make(oauth_server, authorize=Browser(), **pre_registered).start()
    message = str(caught.value)
    assert "refused the pre-registered client 'app-client'" in message, message
    assert "(client_secret_basic)" in message and "Client secret is required" in message
    assert "set oauth.token_endpoint_auth_method" in message and "logout" not in message
    assert APP_CLIENT[1] not in message

    with make(oauth_server, authorize=Browser(), token_endpoint_auth_method="client_secret_post",
              **pre_registered) as client:
        assert add(client) == "42"
    form, authorization = token_requests(oauth_server)[-1]
    assert form["client_secret"] == APP_CLIENT[1] and not authorization


def test_configured_method_for_dynamic_registration_registers_a_confidential_client(oauth_server):
    with make(oauth_server, authorize=Browser()) as client:  # a public registration is stored first
        assert add(client) == "42"
    oauth_server.provider.revoke_all()
    with make(oauth_server, authorize=Browser(), token_endpoint_auth_method="client_secret_basic") as client:
        assert add(client) == "42"
    public, confidential = registered(oauth_server)  # the setting changed the kind of client: registered anew
    assert public.client_secret is None
    assert confidential.token_endpoint_auth_method == "client_secret_basic" and confidential.client_secret
    form, authorization = token_requests(oauth_server)[-1]
    assert authorization.startswith("Basic ") and "client_secret" not in form


def test_invalid_client_for_a_client_registered_just_now(oauth_server):
    def secret_required(form: dict[str, str], headers: dict[str, str]) -> str | None:
        sent = form.get("client_secret") or headers.get("authorization")
        return None if sent else "Client secret is required"

    oauth_server.refuse_token = secret_required
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, authorize=Browser()).start()
    message = str(caught.value)
    assert "refused the client it had just registered dynamically" in message, message
    assert "HTTP 401, invalid_client: Client secret is required" in message
    assert "without a client secret" in message
    assert "set oauth.token_endpoint_auth_method to 'client_secret_post'" in message
    assert "check oauth.client_id" not in message and "logout" not in message

    with make(oauth_server, authorize=Browser(), token_endpoint_auth_method="client_secret_post") as client:
        assert add(client) == "42"  # the advice works


def test_invalid_client_for_a_registration_stored_by_an_earlier_run(oauth_server):
    with make(oauth_server, authorize=Browser()) as client:
        assert add(client) == "42"
    oauth_server.provider.revoke_all()
    oauth_server.refuse_token = lambda form, headers: "Invalid client_id"  # the server forgot the client
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, authorize=Browser()).start()
    message = str(caught.value)
    assert "refused the client registration stored by an earlier run" in message, message
    assert "mcp-litellm logout" in message and "check oauth.client_id" not in message


def test_a_refresh_before_discovery_does_not_fix_the_method_for_the_rest_of_the_run(post_only, token_dir):
    # A later run holds an expired token and refreshes before it has discovered the authorization server:
    # the secret goes as client_secret_basic (the default), which this server refuses; the authorization that
    # follows, with the server's metadata known, sends it as client_secret_post.
    pre_registered = {"client_id": APP_CLIENT[0], "client_secret": APP_CLIENT[1], "redirect_uri": APP_REDIRECT}
    with make(post_only, authorize=Browser(), **pre_registered) as client:
        assert add(client) == "42"
    [stored_file] = token_dir.iterdir()
    stored = json.loads(stored_file.read_text())
    for entry in stored["issuers"].values():
        entry["expires_at"] = time.time() - 60  # as if the run came an hour later
    stored_file.write_text(json.dumps(stored))
    browser = Browser()
    with make(post_only, authorize=browser, **pre_registered) as client:
        assert add(client) == "42"
    assert len(browser.urls) == 1
    forms = [{k: v[0] for k, v in parse_qs(body).items()} for body in post_only.token_bodies]
    sent = [(form["grant_type"], "basic" if headers.get("authorization", "").startswith("Basic ") else
             "post" if form.get("client_secret") else "none")
            for form, headers in zip(forms, post_only.token_headers, strict=True)]
    assert sent == [("authorization_code", "post"), ("refresh_token", "basic"), ("authorization_code", "post")]


def test_invalid_client_for_a_private_key_jwt_client(oauth_server):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key, other = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    oauth_server.jwt_public_key = other.public_key()  # the server knows another key for this client
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, grant="private_key_jwt", client_id=CC_CLIENT[0], private_key=pem, signing_algorithm="ES256",
             storage="memory").start()
    message = str(caught.value)
    assert "refused the client 'machine-client'" in message and "(private_key_jwt)" in message, message
    assert "oauth.private_key" in message and "token_endpoint_auth_method" not in message
    assert "BEGIN" not in message
