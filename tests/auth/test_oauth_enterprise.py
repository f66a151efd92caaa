"""The enterprise grants and DPoP against the test authorization server (tests/auth/enterprise_server.py):
``id_jag`` (SEP-990), ``jwt_bearer`` (SEP-1933) and ``dpop`` (SEP-1932): rotation, refresh, refusals, nonce
challenges at the token endpoint and the MCP server, and DPoP-bound tokens shared by two worker processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.auth.enterprise_server import WORKLOAD_CLIENT, Enterprise, workload_jwt
from tests.auth.oauth_server import APP_CLIENT, OAuthServer, follow
from tests.helpers.servers import ROOT

WORKER = Path(__file__).with_name("token_worker.py")


def start(**options: Any) -> tuple[OAuthServer, Enterprise]:
    server = OAuthServer(front=lambda s, app: Enterprise(s, **options).wrap(app)).start()
    assert isinstance(server.front, Enterprise)
    return server, server.front


@pytest.fixture
def enterprise() -> Iterator[tuple[OAuthServer, Enterprise]]:
    server, front = start()
    try:
        yield server, front
    finally:
        server.stop()


@pytest.fixture
def dpop_server() -> Iterator[tuple[OAuthServer, Enterprise]]:
    server, front = start(dpop=True, nonce=True)
    try:
        yield server, front
    finally:
        server.stop()


def client(server: OAuthServer, **oauth: Any) -> ml.Client:
    return ml.Client("notes", "streamable", {"url": server.url, "oauth": {"storage": "memory", **oauth}},
                     request_timeout=20, start=False)


def whoami(c: ml.Client) -> str:
    return c.tool("whoami").execute({}).text


def id_jag(server: OAuthServer, id_token: Any) -> dict[str, Any]:
    return {"grant": "id_jag", "id_token": id_token, "idp_token_endpoint": f"{server.base}/idp/token",
            "idp_client_id": "idp-client", "client_id": APP_CLIENT[0], "client_secret": APP_CLIENT[1],
            "issuer": server.issuer}


def test_id_jag_exchanges_each_users_id_token_at_the_idp_then_presents_the_id_jag(
        enterprise: tuple[OAuthServer, Enterprise]) -> None:
    server, front = enterprise
    front.id_tokens = {"idt-ana": "ana", "idt-bo": "bo"}

    async def bo_token() -> str:
        return "idt-bo"

    with client(server, **id_jag(server, lambda: "idt-ana")) as ana, client(server, **id_jag(server, bo_token)) as bo:
        assert (whoami(ana), whoami(bo)) == ("ana", "bo")
    assert front.log == ["idp:ana", "jwt_bearer:ana", "idp:bo", "jwt_bearer:bo"]


def test_a_refused_id_token_is_reported_once_without_the_token(enterprise: tuple[OAuthServer, Enterprise]) -> None:
    server, front = enterprise
    settings = id_jag(server, "idt-stale-secret-value")
    with pytest.raises(ml.AuthError) as caught, client(server, **settings) as c:
        whoami(c)
    text = str(caught.value)
    assert "enterprise IdP refused to exchange the user's ID token" in text and "oauth.id_token" in text
    assert "idt-stale-secret-value" not in text and "idt-stale-secret-value" not in repr(ml.Client)
    assert front.log == ["idp:refused"]  # not retried, and no other grant tried


def test_jwt_bearer_reads_the_assertion_file_again_for_each_new_token(
        enterprise: tuple[OAuthServer, Enterprise], tmp_path: Path) -> None:
    server, front = enterprise
    server.provider.token_ttl = 2
    mounted = tmp_path / "token"
    mounted.write_text(workload_jwt(server.issuer, subject="workload-1") + "\n")
    with client(server, grant="jwt_bearer", assertion_file=str(mounted), client_id=WORKLOAD_CLIENT,
                issuer=server.issuer) as c:
        assert whoami(c) == "workload-1"
        mounted.write_text(workload_jwt(server.issuer, subject="workload-2"))  # the platform rotated it
        time.sleep(2.5)  # the access token expired
        assert whoami(c) == "workload-2"
    assert front.log == ["jwt_bearer:workload-1", "jwt_bearer:workload-2"]


@pytest.mark.parametrize("assertion", [
    lambda server: workload_jwt(server.issuer, lifetime=-60),        # expired
    lambda server: workload_jwt("https://elsewhere.example"),         # for another authorization server
])
def test_a_refused_workload_assertion_is_surfaced_not_retried(enterprise: tuple[OAuthServer, Enterprise],
                                                              assertion: Any) -> None:
    server, front = enterprise
    token = assertion(server)
    with pytest.raises(ml.AuthError) as caught, client(server, grant="jwt_bearer", assertion=token,
                                                        client_id=WORKLOAD_CLIENT, issuer=server.issuer) as c:
        whoami(c)
    text = str(caught.value)
    assert "refused the workload's JWT assertion" in text and "invalid_grant" in text and "not retried" in text
    assert token not in text
    assert front.log == ["jwt_bearer:refused"]
    assert [b for b in server.token_bodies if "grant_type" in b] == []  # nothing went past the front either


def test_dpop_binds_tokens_answers_both_nonce_challenges_and_signs_the_refresh(
        dpop_server: tuple[OAuthServer, Enterprise]) -> None:
    server, front = dpop_server
    server.provider.token_ttl = 6
    with client(server, authorize=follow, dpop=True) as c:
        assert c.tool("add").execute({"a": 2, "b": 40}).text == "42"
        assert front.bound  # the token was issued bound to the client's key
        time.sleep(3.5)  # within the refresh margin (3 s of 6): refreshed before the next call
        assert c.tool("add").execute({"a": 1, "b": 1}).text == "2"
    assert front.log[:3] == ["token:use_dpop_nonce", "token:authorization_code:dpop", "mcp:use_dpop_nonce"]
    assert "token:refresh_token:dpop" in front.log, front.log
    assert not [entry for entry in front.log if "refused" in entry or "bad proof" in entry]
    assert front.log.count("mcp:use_dpop_nonce") == 1  # the nonce is kept for the next requests


def test_dpop_with_the_jwt_bearer_grant(dpop_server: tuple[OAuthServer, Enterprise]) -> None:
    server, front = dpop_server
    with client(server, grant="jwt_bearer", assertion=workload_jwt(server.issuer), client_id=WORKLOAD_CLIENT,
                issuer=server.issuer, dpop=True) as c:
        assert whoami(c) == "spiffe://example/workload"
    assert "jwt_bearer:spiffe://example/workload" in front.log and "mcp:dpop" in front.log


def test_the_dpop_key_is_stored_encrypted_beside_the_tokens_and_masked(
        dpop_server: tuple[OAuthServer, Enterprise], tmp_path: Path) -> None:
    server, _ = dpop_server
    key = "correct horse battery staple, twice"
    with client(server, authorize=follow, dpop=True, storage=str(tmp_path), token_key=key) as c:
        c.tool("add").execute({"a": 1, "b": 2})
    [stored] = tmp_path.glob("*.json")
    assert '"sealed"' in stored.read_text() and '"d"' not in stored.read_text()
    from mcp_litellm._transports.oauth.dpop import DPoPKey

    generated = DPoPKey.generate()
    assert generated.record()["d"] not in repr(generated)
    # a second client finds the key with the tokens: no new authorization, the bound token still accepted
    with client(server, authorize=lambda url: pytest.fail("asked to authorize again"), dpop=True,
                storage=str(tmp_path), token_key=key) as again:
        assert again.tool("add").execute({"a": 2, "b": 2}).text == "4"


def test_settings_mask_the_new_secrets() -> None:
    from mcp_litellm._transports.oauth import oauth_settings

    settings = oauth_settings({"url": "https://mcp.example/mcp", "oauth": {
        "grant": "id_jag", "id_token": "idt-secret", "idp_token_endpoint": "https://idp.example/token",
        "idp_client_id": "idp", "idp_client_secret": "idp-secret", "client_id": "c", "client_secret": "cs",
        "issuer": "https://as.example", "dpop": True}})
    shown = repr(settings)
    assert "idt-secret" not in shown and "idp-secret" not in shown and "dpop=True" in shown


@pytest.mark.parametrize(("oauth", "key"), [
    ({"grant": "jwt_bearer", "client_id": "c", "issuer": "https://as.example"}, "oauth.assertion"),
    ({"grant": "jwt_bearer", "assertion": "a", "issuer": "https://as.example"}, "oauth.client_id"),
    ({"grant": "jwt_bearer", "assertion": "a", "client_id": "c"}, "oauth.issuer"),
    ({"grant": "id_jag", "client_id": "c", "client_secret": "s", "issuer": "https://as.example"}, "oauth.id_token"),
    ({"assertion": "a"}, "oauth.assertion"),
    ({"dpop": "yes"}, "oauth.dpop"),
    ({"grant": "id_jag", "id_token": "t", "idp_token_endpoint": "http://idp.example/token", "idp_client_id": "i",
      "client_id": "c", "client_secret": "s", "issuer": "https://as.example"}, "oauth.idp_token_endpoint"),
])
def test_bad_enterprise_settings_name_the_key(oauth: dict[str, Any], key: str) -> None:
    from mcp_litellm._transports.oauth import OAuthProblem, oauth_settings

    with pytest.raises(OAuthProblem) as caught:
        oauth_settings({"url": "https://mcp.example/mcp", "oauth": oauth})
    assert caught.value.key == key


def test_an_async_id_token_callable_runs_on_the_clients_loop(enterprise: tuple[OAuthServer, Enterprise]) -> None:
    server, front = enterprise
    front.id_tokens = {"idt-cy": "cy"}
    loops: list[asyncio.AbstractEventLoop] = []

    async def token() -> str:
        loops.append(asyncio.get_running_loop())
        return "idt-cy"

    async def main() -> str:
        async with ml.Client("notes", "streamable", {"url": server.url, "oauth": {"storage": "memory",
                                                                                  **id_jag(server, token)}}) as c:
            return (await c.aexecute_tool("whoami", {})).text

    assert asyncio.run(main()) == "cy" and len(loops) == 1


def test_two_worker_processes_share_dpop_bound_tokens_and_their_key_through_redis(
        dpop_server: tuple[OAuthServer, Enterprise], redis_url: str, tmp_path: Path) -> None:
    from tests.helpers.oauth import finish, stored_document

    server, front = dpop_server
    server.provider.token_ttl = 4
    go = tmp_path / "go"
    go.touch()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("MCP_LITELLM_TOKEN_KEY", None)

    def worker(*flags: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, str(WORKER), server.url, redis_url, str(go), "--dpop", *flags],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)

    assert "result 42" in finish(worker("--authorize"))
    [entry] = stored_document(redis_url, server)["issuers"].values()
    assert entry["dpop_key"]["kty"] == "EC" and front.bound  # the key, stored beside the bound tokens
    go.unlink()
    workers = [worker() for _ in range(2)]  # no authorizing allowed: the tokens and the key come from Redis
    for process in workers:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready", process.stderr.read() if process.stderr else ""
    expires_at = max(e["expires_at"] for e in stored_document(redis_url, server)["issuers"].values())
    time.sleep(max(0.0, expires_at - time.time()) + 0.1)
    go.touch()
    assert all("result 42" in finish(process) for process in workers)
    assert [e for e in front.log if "refused" in e or "bad proof" in e] == []  # every proof by the bound key
    assert front.log.count("token:authorization_code:dpop") == 1
    assert server.grants().count("refresh_token:reused") == 0


def test_an_id_token_callable_taking_an_argument_is_given_the_connections_user(
        enterprise: tuple[OAuthServer, Enterprise]) -> None:
    server, front = enterprise
    front.id_tokens = {"idt-dee": "dee"}
    with client(server, user="dee", **id_jag(server, lambda user: f"idt-{user}")) as c:
        assert whoami(c) == "dee"
