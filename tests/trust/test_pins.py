"""Pinned tool definitions (trust on first use) against a real hostile server that pulls the rug."""

from __future__ import annotations

import json
import logging
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.servers.rug_pull_server import HONEST, PULLED

ALL = {"read_file", "add", "notes", "pull"}


def names(client: ml.Client | ml.ClientGroup) -> set[str]:
    return {tool.mcp_name for tool in client.tools()}


def test_first_use_pins_every_tool_in_a_private_readable_file(make_rug: Callable[..., ml.Client],
                                                              tmp_path: Path) -> None:
    pins = tmp_path / "state" / "pins.json"
    client = make_rug(tool_pins=pins)
    assert names(client) == ALL
    assert stat.S_IMODE(pins.stat().st_mode) == 0o600
    data = json.loads(pins.read_text())
    entry = data["servers"]["rug"]["tools"]["read_file"]
    assert entry["description"] == HONEST
    assert entry["digest"].startswith("sha256:") and len(entry["digest"]) == 7 + 64
    assert set(data["servers"]["rug"]["tools"]) == ALL


def test_a_rug_pull_between_runs_withholds_the_changed_and_new_tools(make_rug: Callable[..., ml.Client],
                                                                     tmp_path: Path,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    pins = tmp_path / "pins.json"
    make_rug(tool_pins=pins, stdio=True).tools()  # two runs of a real server process
    pulled = make_rug(pulled=True, tool_pins=pins, stdio=True)
    with caplog.at_level(logging.WARNING, logger="mcp_litellm"):
        assert names(pulled) == ALL - {"read_file"}  # exfiltrate is new, read_file changed: both withheld
        pulled.tools(refresh=True)
    with pytest.raises(ml.ToolChangedError) as changed:
        pulled.tool("read_file")
    assert isinstance(changed.value, ml.MCPLiteLLMError)
    assert (changed.value.server, changed.value.tool, changed.value.changes) == ("rug", "read_file", ("description",))
    assert "read_file" in str(changed.value) and "'rug'" in str(changed.value)
    with pytest.raises(ml.ToolChangedError) as new:
        pulled.execute_tool("exfiltrate", {"data": "secret"})
    assert new.value.changes == ("new tool",)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert sum("'read_file'" in w for w in warnings) == 1, warnings  # once per change, not per listing
    assert sum("'exfiltrate'" in w for w in warnings) == 1, warnings
    assert pulled.execute_tool("add", {"a": 2, "b": 3}).text == "5"  # what did not change stays available


def test_accepting_a_change_persists_across_runs(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    make_rug(tool_pins=pins).tools()
    pulled = make_rug(pulled=True, tool_pins=pins)
    assert "read_file" not in names(pulled)
    assert pulled.pin_tools(["read_file"]) == ["read_file"]
    assert names(pulled) == ALL  # exfiltrate is still withheld
    assert pulled.tool("read_file").description == PULLED
    again = make_rug(pulled=True, tool_pins=pins)
    assert names(again) == ALL
    assert again.pin_tools() == sorted(ALL | {"exfiltrate"})
    assert names(make_rug(pulled=True, tool_pins=pins)) == ALL | {"exfiltrate"}
    with pytest.raises(ml.NotFoundError):
        again.pin_tools(["no_such_tool"])
    with pytest.raises(ml.ConfigError, match="tool_pins"):
        make_rug(name="unpinned").pin_tools()


def test_pins_are_kept_per_server_name(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    make_rug(tool_pins=pins).tools()
    other = make_rug(name="other", pulled=True, tool_pins=pins)  # seen for the first time: pinned as it is
    assert names(other) == ALL | {"exfiltrate"}
    assert "read_file" not in names(make_rug(pulled=True, tool_pins=pins))
    servers = json.loads(pins.read_text())["servers"]
    assert servers["other"]["tools"]["read_file"]["description"] == PULLED
    assert servers["rug"]["tools"]["read_file"]["description"] == HONEST


def test_without_tool_pins_nothing_changes(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    assert names(make_rug(pulled=True)) == ALL | {"exfiltrate"}
    assert names(make_rug(pulled=True, tool_pins=None)) == ALL | {"exfiltrate"}
    assert not list(tmp_path.iterdir())


def test_a_rug_pull_mid_session_over_http(rug_http: str, tmp_path: Path) -> None:
    with ml.client("rug", "streamable", {"url": rug_http}, tool_pins=tmp_path / "pins.json") as client:
        kept = client.tool("read_file")
        assert names(client) == ALL
        assert client.execute_tool("pull").text == "pulled"
        deadline = time.monotonic() + 10  # the list_changed travels on its own stream
        while "read_file" in names(client) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert names(client) == ALL - {"read_file"}
        with pytest.raises(ml.ToolChangedError):
            kept.execute(path="/etc/hostname")  # a Tool object kept from before is not callable either
        with pytest.raises(ml.ToolChangedError):
            client.tool("exfiltrate")
        client.pin_tools("read_file")
        assert kept.execute(path="x").text == "contents of x"


def test_group_and_config_file_pins(tmp_path: Path) -> None:
    from tests.helpers.entries import rug_memory, rug_stdio

    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"tool_pins": "pins/all.json", "mcpServers": {
        "rug": rug_stdio(), "own": {**rug_stdio(), "toolPins": "~/own.json"}}}))
    loaded = ml.load_config(config)
    assert loaded["rug"].options["tool_pins"] == str(tmp_path / "pins" / "all.json")  # relative to the file
    assert loaded["own"].options["tool_pins"] == str(Path.home() / "own.json")
    with pytest.raises(ml.ConfigError, match="tool_pins"):
        ml.load_config({"mcpServers": {"rug": {**rug_stdio(), "tool_pins": 3}}})

    everywhere, own = tmp_path / "all.json", tmp_path / "own.json"
    mapping = {"tool_pins": str(everywhere), "mcpServers": {"rug": rug_memory(), "own": {**rug_memory(),
                                                                                         "tool_pins": str(own)}}}
    with ml.establish_connection(mapping) as group:
        group.tools()
    assert set(json.loads(everywhere.read_text())["servers"]) == {"rug"}
    assert set(json.loads(own.read_text())["servers"]) == {"own"}
    with ml.establish_connection({"mcpServers": {"rug": rug_memory(pulled=True)}}, tool_pins=everywhere) as group:
        assert "read_file" not in {t.mcp_name for t in group.tools()}
        with pytest.raises(ml.ToolChangedError):
            group.tool("read_file")
        assert group.pin_tools(["read_file"]) == {"rug": ["read_file"]}
        assert "read_file" in {t.mcp_name for t in group.tools()}
    clients = [ml.client("rug", "memory", rug_memory(pulled=True), start=False)]
    with ml.ClientGroup(clients, tool_pins=everywhere) as group:  # given clients take the group's pins
        assert {t.mcp_name for t in group.tools()} == ALL
        assert "exfiltrate" not in {t.mcp_name for t in group.tools()}
