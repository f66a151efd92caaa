"""One decision for "is this a 2026-era connection?", the SDK's, used by every module that asks."""

from __future__ import annotations

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

import mcp_litellm as ml
from mcp_litellm._core.protocol import is_modern
from tests.servers.fixture_server import build_server


@pytest.mark.parametrize("version", MODERN_PROTOCOL_VERSIONS)
def test_modern_versions_are_modern(version):
    assert is_modern(version)


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, None, "", "2027-01-01", "draft", "None"])
def test_handshake_unknown_and_missing_versions_are_the_handshake_era(version):
    assert not is_modern(version)


@pytest.mark.parametrize(("protocol", "modern"), [("legacy", False), ("auto", True)])
def test_each_era_pings_and_lists_with_the_same_decision(protocol, modern):
    with ml.client("era", "memory", {"server": build_server("era")}, protocol=protocol) as client:
        assert is_modern(client.protocol_version) is modern
        assert client.ping()
        assert "add" in {tool.name for tool in client.tools()}
