"""Tool pins in a real Redis (``tool_pins="redis://..."``): shared by every worker, rug pulls withheld."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.servers.rug_pull_server import HONEST

ALL = {"read_file", "add", "notes", "pull"}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    from tests.redis_server import running_redis

    with running_redis() as url:
        yield url


def names(client: ml.Client) -> set[str]:
    return {tool.mcp_name for tool in client.tools()}


def test_pins_in_redis_are_shared_and_hold_against_a_rug_pull(make_rug: Callable[..., ml.Client],
                                                               redis_url: str) -> None:
    import redis

    assert names(make_rug(tool_pins=redis_url)) == ALL  # first use: pinned as it is
    raw = json.loads(redis.Redis.from_url(redis_url).get("mcp-litellm:pins:rug"))
    assert set(raw) == ALL and raw["read_file"]["description"] == HONEST
    pulled = make_rug(pulled=True, tool_pins=redis_url)  # another worker, the server changed meanwhile
    assert names(pulled) == ALL - {"read_file"}
    with pytest.raises(ml.ToolChangedError):
        pulled.tool("read_file")
    assert pulled.pin_tools(["read_file"]) == ["read_file"]  # accepted once...
    assert "read_file" in names(make_rug(pulled=True, tool_pins=redis_url))  # ...seen by every worker
    store = ml._client.pins.pin_store(redis_url)
    assert "rug" in asyncio.run(store.servers()) and "redis://" in repr(store)


def test_a_config_file_keeps_a_redis_url_as_it_is(tmp_path: Path, redis_url: str) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"tool_pins": redis_url, "mcpServers": {"s": {"command": "x"}}}))
    assert ml.load_config(path)["s"].options["tool_pins"] == redis_url


def test_unreachable_redis_says_where(make_rug: Callable[..., ml.Client]) -> None:
    from tests.auth.oauth_server import free_port

    with pytest.raises(ml.ConfigError, match=r"Redis storage of the tool pins failed .*Redis is up at redis://127"):
        make_rug(tool_pins=f"redis://127.0.0.1:{free_port()}/0").tools()
