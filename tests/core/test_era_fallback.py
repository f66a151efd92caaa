"""``protocol="auto"`` against servers the 2026-07-28 probe breaks (issue 37): a JSON-RPC error answer to
the probe falls back to the handshake; a bridge that initialises its upstream lazily, so that the handshake
after the probe is refused ("Server already initialized", as supergateway's ``--streamableHttp`` bridge
does), gets one fresh handshake-only connection; when that fails too the error says both were tried.

Real parts: a stdio bridge in front of the fixture server (``tests/servers/lazy_bridge_server.py``), and the
fixture server behind a gateway on 127.0.0.1 that answers the probe itself."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

import pytest

import mcp_litellm as ml
from tests.helpers.servers import UvicornThread
from tests.servers.fixture_server import build_server
from tests.servers.gateway_app import Answer, GatewayApp, jsonrpc_error

BRIDGE = Path(__file__).resolve().parent.parent / "servers" / "lazy_bridge_server.py"


def bridge(pids: Path, *options: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(BRIDGE), "--pids", str(pids), *options]}


def started(pids: Path) -> list[int]:
    return [int(pid) for line in pids.read_text().split("\n") if line for pid in line.split()]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie of ours counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def none_left(pids: list[int], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(alive(pid) for pid in pids)


def test_a_lazily_initialising_bridge_connects_with_protocol_auto(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="mcp_litellm")
    pids = tmp_path / "pids"
    with ml.client("lazy", "stdio", bridge(pids)) as client:
        assert client.protocol == "auto"
        assert not client.protocol_version.startswith("2026")  # the handshake era
        assert client.execute_tool("echo", {"message": "through the bridge"}).text == "through the bridge"
        assert len(started(pids)) == 4  # two bridges (and their upstreams): the probe's, then a fresh one
    said = [r.getMessage() for r in caplog.records
            if "refused the handshake after the 2026-07-28 probe" in r.getMessage()]
    assert len(said) == 1 and 'protocol="legacy"' in said[0] and "Server already initialized" in said[0]
    assert none_left(started(pids))


async def test_a_group_of_such_bridges_connects_too(tmp_path):
    pids = tmp_path / "pids"
    config = {"mcpServers": {"a": bridge(pids), "b": bridge(pids)}}
    async with ml.ClientGroup(config, strict=True, with_prefix=True) as group:
        assert {t.name for t in await group.atools()} >= {"a__echo", "b__echo"}
        assert (await group.aexecute_tool("b__echo", {"message": "b"})).text == "b"
    assert none_left(started(pids))


def test_when_the_fresh_handshake_fails_too_the_error_names_both_protocols(tmp_path):
    pids = tmp_path / "pids"
    with pytest.raises(ml.TransportError) as info:
        ml.client("stuck", "stdio", bridge(pids, "--initialised"))
    message = str(info.value)
    assert 'With protocol="auto"' in message and 'With protocol="legacy"' in message
    assert "Server already initialized" in message and info.value.server == "stuck"
    assert len(started(pids)) == 4 and none_left(started(pids))


@pytest.mark.parametrize("status", [200, 400])
def test_any_jsonrpc_error_answer_to_the_probe_falls_back_to_the_handshake(status):
    """Not only -32601: here -32600 "Server already initialized", with HTTP 200 or 400 (the SDK's own
    fallback; kept here as the guard of what issue 37 asked)."""
    app = GatewayApp(build_server("gw"))
    refusal = jsonrpc_error(-32600, "Invalid Request: Server already initialized")
    app.answers["server/discover"] = Answer(status, refusal)
    with UvicornThread(app) as served, ml.client("gw", "streamable", {"url": f"{served.url}/mcp"}) as client:
        assert not client.protocol_version.startswith("2026")
        assert client.execute_tool("echo", {"message": "hi"}).text == "hi"
    assert app.seen[:2] == ["server/discover", "initialize"] and app.seen.count("initialize") == 1


@pytest.mark.parametrize(("status", "words"), [(404, "wrong URL"), (401, "authentication failed"),
                                               (503, "the server failed")])
def test_a_refusal_that_is_not_about_the_era_is_not_retried(status, words):
    app = GatewayApp(build_server("gw"))
    app.answers["*"] = Answer(status, "no")
    with UvicornThread(app) as served, pytest.raises(ml.TransportError, match=words):
        ml.client("gw", "streamable", {"url": f"{served.url}/mcp"})
    assert app.seen == ["server/discover", "initialize"]  # the SDK's fallback, and no fresh connection


@pytest.mark.parametrize("status", [400, 404, 405, 501])
def test_a_plain_http_refusal_of_the_probe_falls_back_to_the_handshake(status):
    """A gateway that does not know ``server/discover`` and says so in HTTP, without a JSON-RPC body."""
    app = GatewayApp(build_server("gw"))
    app.answers["server/discover"] = Answer(status, "unknown method")
    with UvicornThread(app) as served, ml.client("gw", "streamable", {"url": f"{served.url}/mcp"}) as client:
        assert not client.protocol_version.startswith("2026")
        assert client.execute_tool("echo", {"message": "hi"}).text == "hi"
