"""fastmcp 4.x ``app=`` tools (tests/servers/fastmcp4_apps_server.py) over stdio and streamable HTTP.

fastmcp 4 conflicts with this project's pins, so it lives in a virtualenv of its own whose interpreter
``MCP_LITELLM_FASTMCP4_PYTHON`` names (default: ``.ci/fastmcp4-venv/bin/python``): the
tests skip without it locally and fail without it under ``CI``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.chat import new_chat
from tests.helpers.servers import ROOT, free_port, start_http_server, stop_process
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import ScriptedLLM

ENV = "MCP_LITELLM_FASTMCP4_PYTHON"
SERVER = ROOT / "tests" / "servers" / "fastmcp4_apps_server.py"
BOARD_URI = "ui://board/app.html"


def _python() -> str:
    given = os.environ.get(ENV)
    candidates = [given] if given else [str(ROOT / ".ci" / "fastmcp4-venv" / "bin" / "python")]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    how = (f"{ENV} names no interpreter with fastmcp 4: python3 -m venv .ci/fastmcp4-venv && "
           f".ci/fastmcp4-venv/bin/pip install fastmcp==4.2.3, then {ENV}=$PWD/.ci/fastmcp4-venv/bin/python")
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the fastmcp 4 tests: {how}", pytrace=False)
    pytest.skip(how)


@pytest.fixture(scope="module")
def board_http() -> Iterator[str]:
    port = free_port()
    process = start_http_server([_python(), str(SERVER), "http", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop_process(process)


@pytest.fixture(params=["stdio", "streamable"])
def board(request: pytest.FixtureRequest) -> Iterator[ml.Client]:
    config: dict[str, Any]
    if request.param == "stdio":
        config = {"command": _python(), "args": [str(SERVER)]}
    else:
        config = {"url": request.getfixturevalue("board_http")}
    client = ml.client("board", config=config, apps=True)
    yield client
    client.stop()


def test_tool_ui_and_read_ui(board: ml.Client) -> None:
    tools = {tool.name: tool for tool in board.tools()}
    assert tools["show_board"].ui == ml.ToolUI(BOARD_URI, ("model", "app"))
    assert tools["move"].ui is not None and tools["move"].ui.visibility == ("app",)
    app = board.read_ui("show_board")
    assert app.mime_type == "text/html;profile=mcp-app" and "id='board'" in app.html
    assert app.csp == {"resourceDomains": ["https://cdn.example.com"]} and app.prefers_border is True


def test_chat_hides_the_app_only_tool_and_the_bridge_calls_it(board: ml.Client, llm: ScriptedLLM) -> None:
    chat = new_chat(tool_search=False).with_tools(board)
    llm.then(Turn(tool_calls=[("c1", "show_board", {"size": 4})]), Turn(content="There."))
    chunks = list(chat.stream("a board"))
    views = [chunk.app for chunk in chunks if chunk.is_app]
    assert len(views) == 1 and views[0] is not None and views[0].input == {"size": 4}
    for body in llm.requests:
        assert [tool["function"]["name"] for tool in body["tools"]] == ["show_board"]
    answer = ml.AppBridge(chat).handle(views[0].to_dict(), {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                                            "params": {"name": "move", "arguments": {"cell": 5}}})
    assert answer["result"]["content"][0]["text"] == '{"played": 5}'
