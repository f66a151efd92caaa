"""Fixtures for the OAuth tests: the OAuth-protected test server, and an empty token directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.auth.oauth_server import OAuthServer


@pytest.fixture
def oauth_server() -> Iterator[OAuthServer]:
    """A fresh OAuth-protected MCP server (streamable HTTP at ``.url``, SSE at ``.sse_url``)."""
    server = OAuthServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Stored tokens go to a directory of the test's own (never the user's config directory)."""
    directory = tmp_path / "oauth-tokens"
    monkeypatch.setenv("MCP_LITELLM_OAUTH_DIR", str(directory))
    monkeypatch.setenv("MCP_LITELLM_NO_BROWSER", "1")
    return directory


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A real redis-server on a free port for this test session (tests/redis_server.py)."""
    from tests.redis_server import running_redis

    with running_redis() as url:
        yield url
