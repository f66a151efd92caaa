"""``apps`` through every door: an mcpServers entry, ClientGroup(apps=True), ClientPool(apps=True); the group's
read_ui; a wrong value refused."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.apps_server import COUNTER_URI
from tests.helpers.servers import ROOT

ENTRY: dict[str, Any] = {"command": sys.executable, "args": ["-m", "tests.helpers.apps_server"], "cwd": str(ROOT)}


def test_config_entry_key() -> None:
    config = {"mcpServers": {"on": {**ENTRY, "apps": True}, "off": ENTRY}}
    with ml.ClientGroup(config) as group:
        assert str(group["on"].execute_tool("apps_supported", {})) == "yes"
        assert str(group["off"].execute_tool("apps_supported", {})) == "no"


def test_group_option_and_read_ui() -> None:
    with ml.ClientGroup({"mcpServers": {"apps": ENTRY}}, apps=True) as group:
        assert str(group["apps"].execute_tool("apps_supported", {})) == "yes"
        assert group.read_ui("show_counter").uri == COUNTER_URI
        assert group.read_ui(group.tool("show_counter")).server == "apps"


async def test_pool_option() -> None:
    async with ml.ClientPool({"mcpServers": {"apps": ENTRY}}, apps=True) as pool:
        group = await pool.afor_user("alice")
        assert str(await group["apps"].aexecute_tool("apps_supported", {})) == "yes"
        assert (await group.aread_ui("show_counter")).uri == COUNTER_URI


def test_wrong_value_refused() -> None:
    with pytest.raises(ml.ConfigError, match="'apps': must be true or false"):
        ml.ClientGroup({"mcpServers": {"x": {**ENTRY, "apps": "yes"}}})
    with pytest.raises(ml.ConfigError, match="apps"):
        ml.client("x", "stdio", ENTRY, apps="yes", start=False)  # type: ignore[arg-type]
