"""``mcp-litellm pins``: each server's pins with a readable diff, and ``--accept SERVER [TOOL...]``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import mcp_litellm as ml
from mcp_litellm._cli.main import main
from tests.helpers.entries import rug_memory, rug_stdio
from tests.servers.rug_pull_server import PULLED


def test_pins_shows_the_diff_and_accepts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pins = tmp_path / "pins.json"
    with ml.client("rug", "memory", rug_memory(), tool_pins=pins) as honest:
        honest.tools()  # pinned on first use
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"tool_pins": "pins.json", "mcpServers": {"rug": rug_stdio(pulled=True)}}))

    assert main(["pins", "-c", str(config)]) == 1  # something is withheld
    out = capsys.readouterr().out
    assert "rug: 4 pinned, 2 withheld" in out
    assert "read_file: WITHHELD, description" in out and "exfiltrate: WITHHELD, new tool" in out
    assert "  -Read a file." in out and "+" + PULLED in out  # the diff, line by line
    assert "add: as pinned" in out
    assert "mcp-litellm pins --accept rug exfiltrate read_file" in out

    assert main(["pins", "-c", str(config), "--accept", "rug", "read_file"]) == 0
    assert "rug: accepted read_file" in capsys.readouterr().out
    assert json.loads(pins.read_text())["servers"]["rug"]["tools"]["read_file"]["description"] == PULLED
    assert "exfiltrate" not in json.loads(pins.read_text())["servers"]["rug"]["tools"]
