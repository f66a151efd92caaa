"""The fixture server reached over each transport: connect, list, call, stop."""

from __future__ import annotations

import mcp_litellm as ml


def test_connect_list_call_stop(make_client, transport):
    client = make_client(transport)
    assert client.is_alive()
    assert client.server_info is not None and client.server_info.name == "fixture"
    assert "add" in [t.name for t in client.tools()]
    assert client.tool("add").execute(a=2, b=40).text == "42"
    client.stop()
    assert not client.is_alive()
    assert client.ping() is False


async def test_async_connect_list_call(make_client, transport):
    client = make_client(transport, start=False)
    async with client:
        assert await client.aping()
        tool = await client.atool("echo")
        result = await tool.aexecute(message="hi")
        assert result.text == "hi" and not result.is_error
    assert not client.is_alive()


def test_unknown_tool_lists_available(make_client):
    client = make_client("memory")
    try:
        client.tool("nope")
    except ml.NotFoundError as exc:
        assert "add" in str(exc) and exc.name == "nope"
    else:
        raise AssertionError("NotFoundError expected")
