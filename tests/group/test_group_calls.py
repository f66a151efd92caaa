"""ClientGroup.execute_tool / read_resource (and async twins) against real servers in-process."""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from tests.servers.catalog_server import build_server as build_catalog
from tests.servers.fixture_server import build_server as build_fixture


@pytest.fixture
def group():
    clients = [ml.client("fx", "memory", {"server": build_fixture("fx")}, start=False),
               ml.client("cat", "memory", {"server": build_catalog(20, name="cat")}, start=False)]
    with ml.ClientGroup(clients) as started:
        yield started


def test_execute_tool_finds_the_server(group):
    assert group.execute_tool("add", {"a": 2, "b": 3}).text == "5"
    assert group.execute_tool("calendar_create_event", {"title": "standup"}).text.startswith(
        "calendar_create_event ran with")
    tool = group.tool("echo")
    assert group.execute_tool(tool, {"message": "hi"}).text == "hi"
    with pytest.raises(ml.NotFoundError, match="nope"):
        group.execute_tool("nope")


async def test_aexecute_tool_and_aread_resource(group):
    result = await group.aexecute_tool("echo", {"message": "async"})
    assert result.text == "async" and not result.is_error
    assert "readme" in (await group.aread_resource("file:///docs/readme.md")).lower()


def test_read_resource_by_uri_and_template(group):
    assert isinstance(group.read_resource("file:///data/blob.bin"), bytes)
    assert "error" in group.read_resource("logs://2026-01-01/error")  # from the template logs://{date}/{level}
    with pytest.raises(ml.NotFoundError, match="file:///nowhere"):
        group.read_resource("file:///nowhere")
    with pytest.raises(ml.ConfigError, match="uri"):
        group.read_resource("")


def test_a_tool_of_another_client_is_refused(group):
    with ml.client("other", "memory", {"server": build_fixture("other")}) as other, \
            pytest.raises(ml.ConfigError, match="not in this group"):
        group.execute_tool(other.tool("add"), {"a": 1, "b": 1})
