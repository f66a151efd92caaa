"""A configured HTTP header that HTTP cannot carry (a line break in a secret read from a file, a value put in the
name) is refused when the client is made, naming the header and never showing its value: HTTP refused it on the
first request, in an error that quoted the value (``Illegal header value b'sk-...\\n'``)."""

from __future__ import annotations

import traceback

import pytest

import mcp_litellm as ml
from tests.helpers.servers import transport_config

SECRET = "sk-live-0123456789abcdef"


def _everything(error: BaseException) -> str:
    return "".join(traceback.format_exception(error)) + repr(error)


@pytest.mark.parametrize("transport", ["streamable", "sse"])
@pytest.mark.parametrize("value", [f"{SECRET}\n", f"Bearer {SECRET}\r\nX-Injected: 1", f"{SECRET}\x00"])
def test_a_header_value_http_cannot_carry_is_named_and_masked(fixture_http, transport, value):
    kind, config = transport_config(transport, fixture_http)
    config = {**config, "headers": {"X-Api-Key": value}}
    with pytest.raises(ml.ConfigError) as info, ml.Client("api", kind, config) as client:
        client.tools()
    message = str(info.value)
    assert "header 'X-Api-Key'" in message and "line break or another control character" in message
    assert SECRET not in _everything(info.value) and "sk-live" not in _everything(info.value)


def test_a_header_name_holding_its_value_is_refused_without_showing_it(fixture_http):
    kind, config = transport_config("streamable", fixture_http)
    with pytest.raises(ml.ConfigError) as info:
        ml.Client("api", kind, {**config, "headers": {f"Authorization: Bearer {SECRET}": "x"}})
    assert "got 'Authorization' followed by ':'" in str(info.value)
    assert SECRET not in _everything(info.value)


async def test_a_users_header_value_in_a_pool_is_named_and_masked(fixture_http):
    config = {"mcpServers": {"api": {"url": fixture_http["streamable-http"], "per_user": True}}}
    async with ml.ClientPool(config) as pool:
        with pytest.raises(ml.ConfigError) as info:
            await pool.afor_user("alice", headers={"X-Api-Key": f"{SECRET}\n"})
        assert "header 'X-Api-Key'" in str(info.value) and SECRET not in _everything(info.value)
        assert pool.users == []
