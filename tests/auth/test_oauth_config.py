"""The ``auth`` / ``oauth`` settings: checked by the transports and by ``load_config`` (JSON, JSONC, YAML)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml

URL = "http://127.0.0.1:9/mcp"


def load(tmp_path: Path, entry: dict[str, Any], *, environ: dict[str, str] | None = None) -> ml.ConfigError | Any:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"notes": entry}}))
    return ml.load_config(path, environ=environ or {})


def test_auth_error_is_a_transport_error():
    assert issubclass(ml.AuthError, ml.TransportError) and "AuthError" in ml.__all__


def test_json_jsonc_and_yaml_files(tmp_path):
    (tmp_path / "a.jsonc").write_text("""{
      // a hosted server
      "mcpServers": {
        "notes": {"url": "https://mcp.example.com/mcp", "auth": "oauth",},
        "docs": {"url": "https://docs.example.com/sse", "oauth": {"client_id": "abc", "client_secret": "${DOCS_SECRET}",
                 "issuer": "https://auth.example.com",
                 "scopes": ["read", "write"], "redirect_uri": "http://127.0.0.1:8765/callback", "timeout": 60}},
      },
    }""")
    servers = ml.load_config(tmp_path / "a.jsonc", environ={"DOCS_SECRET": "s3cret-value-42"})
    assert servers["notes"].config["auth"] == "oauth"
    assert servers["docs"].transport_type == "sse"
    assert servers["docs"].config["oauth"]["client_secret"] == "s3cret-value-42"
    assert "s3cret-value-42" not in repr(servers["docs"])
    assert "'client_id': 'abc'" in repr(servers["docs"])
    pytest.importorskip("yaml")
    (tmp_path / "b.yaml").write_text("mcpServers:\n  notes:\n    url: https://mcp.example.com/mcp\n    oauth:\n"
                                     "      grant: client_credentials\n      client_id: machine\n"
                                     "      client_secret: ${CC_SECRET}\n      issuer: https://auth.example.com\n"
                                     "      storage: tokens\n")
    servers = ml.load_config(tmp_path / "b.yaml", environ={"CC_SECRET": "cc-secret-123"})
    oauth = servers["notes"].config["oauth"]
    assert oauth["grant"] == "client_credentials"
    assert oauth["storage"] == str(tmp_path / "tokens")  # relative to the file


@pytest.mark.parametrize(("entry", "key", "words"), [
    ({"auth": "basic"}, "auth", 'must be "oauth"'),
    ({"auth": 3}, "auth", 'must be "oauth"'),
    ({"oauth": {"grant": "password"}}, "oauth.grant", "must be one of"),
    ({"oauth": {"client_secrets": "x"}}, "oauth.client_secrets", "unknown OAuth setting"),
    ({"oauth": {"authorize": "https://example.com"}}, "oauth.authorize", "can only be set in code"),
    ({"oauth": {"grant": "client_credentials", "client_id": "m"}}, "oauth.client_secret", "needs both"),
    ({"oauth": {"grant": "private_key_jwt", "client_id": "m"}}, "oauth.private_key", "needs client_id and"),
    ({"oauth": {"redirect_uri": "https://example.com/cb"}}, "oauth.redirect_uri", "loopback URL with a port"),
    ({"oauth": {"redirect_uri": "http://127.0.0.1/cb"}}, "oauth.redirect_uri", "loopback URL with a port"),
    ({"oauth": {"scopes": 5}}, "oauth.scopes", "list of scope names"),
    ({"oauth": {"timeout": -1}}, "oauth.timeout", "positive number"),
    ({"oauth": {"client_metadata_url": "http://example.com/c.json"}}, "oauth.client_metadata_url", "https://"),
    ({"oauth": {"client_secret": "abcdefgh"}}, "oauth.client_secret", "needs client_id"),
    ({"oauth": {"storage": 7}}, "oauth.storage", "TokenStorage"),
    ({"oauth": {"signing_algorithm": "none"}}, "oauth.signing_algorithm", "must be one of"),
    ({"oauth": {"grant": "private_key_jwt", "client_id": "m", "private_key": "missing.pem"}}, "oauth.private_key",
     "cannot be read"),
    ({"oauth": ["client_id"]}, "oauth", "must be a mapping"),
    ({"oauth": {"token_endpoint_auth_method": "basic"}}, "oauth.token_endpoint_auth_method", "must be one of"),
    ({"oauth": {"client_id": "a", "client_secret": "abcdefgh"}}, "oauth.issuer", "required with a client secret"),
    ({"oauth": {"grant": "private_key_jwt", "client_id": "m", "private_key": "-----BEGIN PRIVATE KEY-----"}},
     "oauth.issuer", "required with a client secret or private key"),
    ({"oauth": {"client_id": "a", "client_secret": "abcdefgh", "token_endpoint_auth_method": "none",
                "issuer": "https://a.example"}},
     "oauth.token_endpoint_auth_method", "'none' sends no client secret"),
    ({"oauth": {"client_id": "a", "token_endpoint_auth_method": "client_secret_post"}},
     "oauth.token_endpoint_auth_method", "oauth.client_secret is not set"),
    ({"oauth": {"grant": "client_credentials", "client_id": "m", "client_secret": "abcdefgh",
                "token_endpoint_auth_method": "none"}}, "oauth.token_endpoint_auth_method", "client_secret_post"),
    ({"oauth": {"grant": "private_key_jwt", "client_id": "m", "private_key": "-----BEGIN PRIVATE KEY-----",
                "token_endpoint_auth_method": "client_secret_basic"}}, "oauth.token_endpoint_auth_method",
     "does not apply"),
])
def test_bad_settings_name_the_server_and_key(tmp_path, entry, key, words):
    with pytest.raises(ml.ConfigError) as caught:
        load(tmp_path, {"url": URL, **entry})
    message = str(caught.value)
    assert f"server 'notes', key {key!r}" in message, message
    assert words in message


def test_secrets_are_not_quoted_in_errors(tmp_path):
    with pytest.raises(ml.ConfigError) as caught:
        load(tmp_path, {"url": URL, "oauth": {"client_secret": "${S}"}}, environ={"S": "top-secret-value"})
    assert "top-secret-value" not in str(caught.value)


def test_oauth_is_only_for_http_servers(tmp_path):
    with pytest.raises(ml.ConfigError, match="unknown key for a stdio server"):
        load(tmp_path, {"command": "x", "oauth": {}})


@pytest.mark.parametrize("transport", ["streamable", "sse"])
def test_transport_checks_the_same_settings(transport):
    with pytest.raises(ml.ConfigError, match=r"client 'x', config key 'oauth.grant': must be one of"):
        ml.Client("x", transport, {"url": URL, "oauth": {"grant": "implicit"}})
    with pytest.raises(ml.ConfigError, match="give either 'oauth' settings or an 'auth' object"):
        import httpx2

        ml.Client("x", transport, {"url": URL, "auth": httpx2.BasicAuth("u", "p"), "oauth": {}})


def test_client_repr_masks_oauth_secrets():
    client = ml.Client("x", "streamable", {"url": URL, "oauth": {"client_id": "abc", "client_secret": "hunter2-hunter2",
                                                                  "issuer": "https://auth.example.com",
                                                                  "authorize": lambda url: url}}, start=False)
    shown = repr(client)
    assert "hunter2" not in shown
    assert "'client_id': 'abc'" in shown and "'authorize': '<function>'" in shown


def test_repr_shows_the_issuer_and_masks_the_credentials(tmp_path):
    """The issuer is a public URL (which authorization server the credentials go to): reprs show it, as they show
    the client id, while the secret, the private key and the key of stored tokens stay masked."""
    oauth = {"grant": "client_credentials", "client_id": "machine", "client_secret": "cc-secret-123456",
             "issuer": "https://auth.example.com", "token_key": "tk-secret-654321"}
    client = ml.Client("x", "streamable", {"url": URL, "oauth": oauth}, start=False)
    servers = ml.load_config({"mcpServers": {"notes": {"url": URL, "oauth": oauth}}})
    jwt = {"grant": "private_key_jwt", "client_id": "m", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEv",
           "issuer": "https://auth.example.com"}
    keyed = ml.Client("y", "streamable", {"url": URL, "oauth": jwt}, start=False)
    for shown in (repr(client), repr(servers["notes"]), repr(keyed)):
        assert "'issuer': 'https://auth.example.com'" in shown, shown
        assert "cc-secret" not in shown and "tk-secret" not in shown and "PRIVATE KEY" not in shown, shown
    assert "'client_secret': '***'" in repr(client) and "'private_key': '***'" in repr(keyed)


@pytest.mark.parametrize(("key", "said"), [("issuer", "the authorization server's issuer URL"),
                                           ("idp_token_endpoint", "the enterprise IdP's token endpoint URL")])
@pytest.mark.parametrize("value", ["ftp://auth.example.com", "https://", "auth.example.com"])
def test_a_url_setting_that_is_not_an_http_url_with_a_host_is_refused(key, said, value):
    with pytest.raises(ml.ConfigError, match=rf"config key 'oauth.{key}': must be {said}, such as https://"):
        ml.Client("x", "streamable", {"url": URL, "oauth": {"client_id": "abc", key: value}}, start=False)
