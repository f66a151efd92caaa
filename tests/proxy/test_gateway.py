"""The LiteLLM Proxy as a peer: its MCP gateway at /mcp, a Chat served by the proxy, and its config.yaml.

A real ``litellm --config`` proxy (litellm[proxy] 1.106.2, from ``MCP_LITELLM_PROXY``) with the fixture
server over stdio in its ``mcp_servers:``; its model alias is answered by a scripted OpenAI-compatible
server. See conftest.py for how the proxy is found and started.
"""

from __future__ import annotations

import pytest

import mcp_litellm as ml
from tests.helpers.proxy import Proxy
from tests.scripted_llm.server import Turn

pytestmark = [pytest.mark.proxy, pytest.mark.timeout(360)]  # the first test waits for the proxy to start


def gateway(proxy: Proxy, key: str | None = None, **options: object) -> ml.Client:
    """A client of the proxy's MCP gateway, authenticated with a LiteLLM key in ``x-litellm-api-key``."""
    headers = {"x-litellm-api-key": f"Bearer {key or proxy.key}"}
    return ml.client("litellm", "streamable", {"url": proxy.mcp_url, "headers": headers}, request_timeout=60,
                     **options)  # type: ignore[arg-type]


def test_gateway_lists_and_calls_the_proxys_tools(litellm_proxy: Proxy):
    with gateway(litellm_proxy) as client:
        assert client.protocol_version == "2025-11-25"
        names = {tool.name for tool in client.tools()}
        assert {"fixture-add", "fixture-echo", "fixture-weather"} <= names, litellm_proxy.log_tail()
        assert "fixture-crash" not in names, "the proxy's disallowed_tools hide it"
        assert all(name.startswith("fixture-") for name in names)
        assert client.execute_tool("fixture-add", {"a": 2, "b": 3}).text == "5"
        weather = client.execute_tool("fixture-weather", {"city": "Oslo"})
        assert weather.structured is not None and weather.structured["city"] == "Oslo"
        bad = client.execute_tool("fixture-add", {"a": "two"})
        assert bad.is_error, "a rejected call comes back as an error result, not an exception"
        assert client.is_alive()


async def test_gateway_tools_from_async_code(litellm_proxy: Proxy):
    client = gateway(litellm_proxy, start=False)
    async with client:
        tool = await client.atool("fixture-echo")
        assert (await tool.aexecute(message="through the proxy")).text == "through the proxy"


def test_gateway_refuses_a_wrong_key(litellm_proxy: Proxy):
    with pytest.raises(ml.TransportError) as info:
        gateway(litellm_proxy, key="sk-not-a-key")
    assert "'litellm'" in str(info.value) and info.value.http_status is not None
    assert "sk-not-a-key" not in str(info.value)


def test_chat_through_the_proxy_runs_the_tool_loop_with_the_gateways_tools(litellm_proxy: Proxy):
    llm = litellm_proxy.llm
    seen = len(llm.requests)
    llm.script.extend([Turn(tool_calls=[("call_1", "fixture-add", {"a": 20, "b": 22})]),
                       Turn(content="20 + 22 is 42.")])
    with gateway(litellm_proxy) as client:
        chat = ml.Chat(model=f"litellm_proxy/{litellm_proxy.alias}", api_base=litellm_proxy.url,
                       api_key=litellm_proxy.key)
        chat.with_tools(*client.tools())
        reply = chat.ask("What is 20 + 22?")
    assert str(reply) == "20 + 22 is 42."
    first, second = llm.requests[seen:]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert {"fixture-add", "fixture-echo"} <= offered
    tool_messages = [m for m in second["messages"] if m.get("role") == "tool"]
    assert tool_messages == [{"role": "tool", "tool_call_id": "call_1", "content": "42"}]
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


def test_the_proxys_config_file_loads_with_load_config(litellm_proxy: Proxy):
    # the very file the proxy runs with: the same server, started directly (not through the gateway)
    servers = ml.load_config(litellm_proxy.config)
    assert list(servers) == ["fixture"]
    with servers["fixture"].client(start=True) as client:
        names = {tool.name for tool in client.tools()}
        assert "add" in names and "crash" not in names, "disallowed_tools applies here too"
        assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
