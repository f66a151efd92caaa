"""Call forms that changed keep working for a while, each with a DeprecationWarning that says what to write."""

from __future__ import annotations

import warnings

import pytest

import mcp_litellm as ml
from tests.servers.fixture_server import build_server


@pytest.fixture(scope="module")
def client():
    with ml.client("fixture", "memory", {"server": build_server()}) as client:
        yield client


def test_refresh_is_keyword_only_and_the_positional_form_still_refreshes(client):
    tools = client.tools()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert client.tools(refresh=False)[0] is tools[0]
    with pytest.warns(DeprecationWarning, match=r"Client\.tools\(\).*refresh=") as caught:
        refreshed = client.tools(True)
    assert caught[0].filename == __file__, "the warning points at the caller's line"
    assert refreshed[0] is not tools[0] and [t.name for t in refreshed] == [t.name for t in tools]
    with pytest.warns(DeprecationWarning, match=r"Client\.tool\(\)"):
        assert client.tool("add", True).name == "add"
    with pytest.warns(DeprecationWarning, match=r"Client\.prompts\(\)"):
        assert client.prompts(True) == client.prompts()
    with pytest.raises(TypeError, match="multiple values"):
        client.tools(True, refresh=True)
    with pytest.raises(TypeError, match="at most"):
        client.tool("add", True, True)


async def test_the_async_twins_take_refresh_by_name_too():
    async with ml.client("fixture", "memory", {"server": build_server()}) as client:
        first = await client.aresources()
        with pytest.warns(DeprecationWarning, match=r"Client\.aresources\(\)") as caught:
            again = await client.aresources(True)
        assert caught[0].filename == __file__
        assert [r.uri for r in again] == [r.uri for r in first] and again[0] is not first[0]
