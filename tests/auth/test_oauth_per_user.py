"""Per-user OAuth in a ClientPool, against the local OAuth server: each user authorizes once, their tokens are
stored under their user id, and each connection carries only its own user's token (the server's ``whoami`` tool
answers with the subject of the token a request came with)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import pytest

import mcp_litellm as ml
from tests.auth.oauth_server import OAuthServer


def browser_of(user: str, url: str) -> str:
    """What ``user``'s browser does at the auto-approving server: they log in, it redirects back."""
    response = httpx2.get(url, headers={"X-Test-User": user}, follow_redirects=False, timeout=10)
    assert response.status_code in (302, 303, 307), response.status_code
    return str(response.headers["location"])


def whoami(group: ml.ClientGroup) -> str:
    return group.execute_tool("notes__whoami", {}).text


def pool_config(server: OAuthServer, **oauth: Any) -> dict[str, Any]:
    return {"mcpServers": {"notes": {"url": server.url, "oauth": oauth}}}


def test_two_users_authorize_separately_and_keep_their_tokens(oauth_server, token_dir: Path):
    asked: list[str] = []

    def authorize(url: str, user: str) -> str:  # two arguments: called with the user
        asked.append(user)
        return browser_of(user, url)

    config = {"mcpServers": {"notes": {"url": oauth_server.url, "oauth": {"authorize": authorize}}}}
    with ml.ClientPool(config, with_prefix=True) as pool:
        assert pool.per_user == ["notes"]
        alice = pool.for_user("alice")
        bob = pool.for_user("bob")
        assert alice["notes"] is not bob["notes"]
        for _ in range(2):
            assert whoami(alice) == "alice" and whoami(bob) == "bob"
        assert asked == ["alice", "bob"]
    assert oauth_server.grants().count("authorize") == 2
    stored = sorted(p.name for p in token_dir.glob("*.json"))
    assert len(stored) == 2 and "alice" in stored[0] and "bob" in stored[1]
    issued = {token.access_token for token in oauth_server.provider.issued}
    for path in token_dir.glob("*.json"):  # each file holds one user's token, no other user's
        text = path.read_text()
        assert sum(token in text for token in issued) == 1

    # A new pool (another worker, a restart): the users' stored tokens are used, nobody is asked again.
    with ml.ClientPool(config, with_prefix=True) as pool:
        assert whoami(pool.for_user("bob")) == "bob" and whoami(pool.for_user("alice")) == "alice"
    assert asked == ["alice", "bob"]


def test_a_user_who_has_not_authorized_gets_the_authorization_url(oauth_server, token_dir):
    with ml.ClientPool(pool_config(oauth_server), with_prefix=True) as pool:
        with pytest.raises(ml.AuthError) as caught:
            pool.for_user("carol")
        error = caught.value
        assert error.authorization_url is not None
        assert error.authorization_url.startswith(f"{oauth_server.base}/authorize?")
        assert "user 'carol' has not authorized server 'notes' yet" in str(error)
        assert pool.users == []
        assert oauth_server.grants().count("authorize") == 0


def test_an_authorize_taking_the_url_only_still_works(oauth_server, token_dir):
    urls: list[str] = []

    def authorize(url: str) -> str:
        urls.append(url)
        return browser_of("dave", url)

    with ml.ClientPool(pool_config(oauth_server, authorize=authorize), with_prefix=True) as pool:
        assert whoami(pool.for_user("dave")) == "dave"
        assert len(urls) == 1


def test_a_shared_oauth_server_keeps_one_authorization(oauth_server, token_dir):
    asked: list[Any] = []

    def authorize(url: str, user: str | None) -> str:
        asked.append(user)
        return browser_of("the-app", url)

    config = {"mcpServers": {"notes": {"url": oauth_server.url, "per_user": False,
                                       "oauth": {"authorize": authorize}}}}
    with ml.ClientPool(config, with_prefix=True) as pool:
        assert pool.shared == ["notes"]
        assert whoami(pool.for_user("alice")) == "the-app" == whoami(pool.for_user("bob"))
    assert asked == [None]  # the app's own authorization, not a user's
