"""OAuth tokens in a real Redis (``oauth.storage`` ``"redis://..."``), shared by worker processes, and
encrypted at rest (Redis and files) when a key is given; token files refused when planted."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.auth.oauth_server import OAuthServer, follow
from tests.helpers.oauth import finish, raw_values, stored_document
from tests.helpers.servers import ROOT

WORKER = Path(__file__).with_name("token_worker.py")
KEY = "correct horse battery staple, twice"


def make(server: OAuthServer, **oauth: Any) -> ml.Client:
    return ml.Client("notes", "streamable", {"url": server.url, "oauth": oauth}, request_timeout=20, start=False)


def add(client: ml.Client) -> str:
    return client.tool("add").execute({"a": 2, "b": 40}).text


def worker(server: OAuthServer, redis_url: str, go: Path, *, authorize: bool = False) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("MCP_LITELLM_TOKEN_KEY", None)
    return subprocess.Popen([sys.executable, str(WORKER), server.url, redis_url, str(go),
                             *(["--authorize"] if authorize else [])], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)


def test_two_processes_share_one_users_tokens_and_one_refresh(oauth_server, redis_url, tmp_path):
    oauth_server.provider.token_ttl = 4  # every access token lasts 4 s
    go = tmp_path / "go"
    go.touch()
    first = finish(worker(oauth_server, redis_url, go, authorize=True))
    assert "result 42" in first
    assert oauth_server.grants() == ["register", "authorize", "authorization_code"]
    stored = stored_document(redis_url, oauth_server)
    [entry] = stored["issuers"].values()
    assert entry["tokens"]["access_token"] == oauth_server.provider.issued[-1].access_token
    assert not list(Path(os.environ["MCP_LITELLM_OAUTH_DIR"]).glob("*.json"))  # Redis, not the token directory

    # Two more workers (no authorizing allowed) start with those tokens (refreshed once if they expired
    # meanwhile); then the access token expires and both call at once. The server rotates refresh tokens (the
    # old one is spent on first use), so two refreshes with one refresh token would fail one of them: the
    # lock lets one refresh and the other take its new tokens from Redis.
    go.unlink()
    oauth_server.provider.refresh_delay = 0.5  # so that two refreshes at once would overlap at the server
    workers = [worker(oauth_server, redis_url, go) for _ in range(2)]
    for process in workers:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.strip() == "ready", (line, process.stderr.read() if process.poll() is not None else "")
    refreshes = oauth_server.grants().count("refresh_token")
    assert refreshes <= 1  # on connecting, if the first token had expired by then: once for both
    expiry = stored_document(redis_url, oauth_server)["issuers"]
    expires_at = max(e["expires_at"] for e in expiry.values())
    time.sleep(max(0.0, expires_at - time.time()) + 0.1)
    go.touch()
    outputs = [finish(process) for process in workers]
    assert all("result 42" in out for out in outputs), outputs
    grants = oauth_server.grants()
    assert grants.count("authorize") == 1  # nobody had to authorize again
    assert "refresh_token:reused" not in grants
    assert grants.count("refresh_token") == refreshes + 1  # one refresh for the two workers after the expiry
    [entry] = stored_document(redis_url, oauth_server)["issuers"].values()
    newest = oauth_server.provider.issued[-1]
    assert entry["tokens"]["access_token"] == newest.access_token  # the newer token was not lost
    assert entry["tokens"]["refresh_token"] in oauth_server.provider.refresh  # and its refresh token still works


def test_tokens_in_redis_are_encrypted_when_a_key_is_given(oauth_server, redis_url, monkeypatch):
    with make(oauth_server, storage=redis_url, token_key=KEY, authorize=follow) as client:
        assert add(client) == "42"
    issued = oauth_server.provider.issued[-1]
    [raw] = [v for k, v in raw_values(redis_url).items() if f"127.0.0.1_{oauth_server.port}" in k]
    assert issued.access_token.encode() not in raw and issued.refresh_token.encode() not in raw
    assert b"access_token" not in raw and b"client_id" not in raw
    assert b"sealed" in raw

    with make(oauth_server, storage=redis_url, token_key=KEY, authorize=None) as client:  # reused, not asked
        assert add(client) == "42"
    assert oauth_server.grants().count("authorize") == 1

    monkeypatch.setenv("MCP_LITELLM_TOKEN_KEY", "a wrong passphrase of sufficient length")
    with pytest.raises(ml.AuthError) as wrong:
        make(oauth_server, storage=redis_url, authorize=follow).start()
    message = str(wrong.value)
    assert "cannot decrypt the stored OAuth tokens" in message and "MCP_LITELLM_TOKEN_KEY" in message
    assert "wrong passphrase" not in message and KEY not in message

    monkeypatch.delenv("MCP_LITELLM_TOKEN_KEY")
    with pytest.raises(ml.AuthError, match="are encrypted: set MCP_LITELLM_TOKEN_KEY"):
        make(oauth_server, storage=redis_url, authorize=follow).start()


def test_token_files_are_encrypted_with_the_key_from_the_environment(oauth_server, token_dir, monkeypatch):
    from cryptography.fernet import Fernet

    monkeypatch.setenv("MCP_LITELLM_TOKEN_KEY", Fernet.generate_key().decode())
    with make(oauth_server, authorize=follow) as client:
        assert add(client) == "42"
    [stored] = token_dir.glob("*.json")
    text = stored.read_text()
    issued = oauth_server.provider.issued[-1]
    assert issued.access_token not in text and issued.refresh_token not in text and "client_id" not in text
    with make(oauth_server, authorize=None) as client:
        assert add(client) == "42"
    monkeypatch.setenv("MCP_LITELLM_TOKEN_KEY", Fernet.generate_key().decode())
    with pytest.raises(ml.AuthError, match=r"cannot decrypt the stored OAuth tokens .* with the key from "
                                           r"MCP_LITELLM_TOKEN_KEY"):
        make(oauth_server, authorize=follow).start()


def test_bad_redis_storage_and_keys_are_reported_by_name():
    with pytest.raises(ml.ConfigError, match=r"oauth\.storage.*needs a host"):
        ml.Client("notes", "streamable", {"url": "http://127.0.0.1:9/mcp", "oauth": {"storage": "redis://"}},
                  start=False).start()
    with pytest.raises(ml.ConfigError, match=r"oauth\.token_key.*too short") as caught:
        ml.Client("notes", "streamable", {"url": "http://127.0.0.1:9/mcp", "oauth": {"token_key": "hunter2"}},
                  start=False).start()
    assert "hunter2" not in str(caught.value)


def test_redis_down_is_a_clear_auth_error(oauth_server):
    from tests.helpers.servers import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    with pytest.raises(ml.AuthError, match=r"Redis token storage .* failed .*check that Redis is up at redis://127"):
        make(oauth_server, storage=url, authorize=follow).start()


@pytest.mark.parametrize("plant", ["symlink", "world-writable", "other-owner"])
def test_planted_token_files_are_refused(oauth_server, token_dir, tmp_path, plant):
    with make(oauth_server, authorize=follow) as client:
        assert add(client) == "42"
    [stored] = token_dir.glob("*.json")
    if plant == "symlink":
        elsewhere = tmp_path / "planted.json"
        elsewhere.write_text(stored.read_text())
        stored.unlink()
        stored.symlink_to(elsewhere)
        why = "it is a symbolic link"
    elif plant == "world-writable":
        stored.chmod(0o666)
        why = "others may write to it"
    else:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            pytest.skip("giving a file to another user needs root")
        os.chown(stored, 65534, 65534)
        why = "it belongs to another user"
    with pytest.raises(ml.AuthError) as caught:
        make(oauth_server, authorize=follow).start()
    assert f"refusing the OAuth token file {stored}" in str(caught.value) and why in str(caught.value)


def test_two_clients_sharing_a_token_file_refresh_once(oauth_server, token_dir):
    # The file store's lock (fcntl) does for token files what the Redis lock does for Redis: two clients of one
    # server whose access token expired refresh once, the second taking the first one's new tokens.
    import threading

    oauth_server.provider.token_ttl = 2
    with make(oauth_server, authorize=follow) as first, make(oauth_server, authorize=None) as second:
        assert add(first) == "42" and add(second) == "42"
        assert oauth_server.grants().count("authorize") == 1
        before = oauth_server.grants().count("refresh_token")
        oauth_server.provider.refresh_delay = 0.5
        time.sleep(2.1)
        results: list[str] = []
        threads = [threading.Thread(target=lambda c=c: results.append(add(c))) for c in (first, second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert results == ["42", "42"]
    grants = oauth_server.grants()
    assert grants.count("refresh_token") == before + 1 and "refresh_token:reused" not in grants
    assert grants.count("authorize") == 1
