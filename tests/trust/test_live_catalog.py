"""``chat.with_tools(client)`` / ``chat.with_tools(group)``: each model request carries the server's current
tools; after a rug pull mid-session the withheld tool is in neither the chat nor the request the model gets.
The model is scripted at the HTTP level (LiteLLM's real request code runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mcp_litellm as ml
from tests.helpers.chat import new_chat
from tests.helpers.entries import rug_memory
from tests.scripted_llm.openai import Turn
from tests.scripted_llm.respx_mock import ScriptedLLM
from tests.servers.rug_pull_server import PULLED


def offered(request: dict) -> dict[str, str]:
    return {t["function"]["name"]: t["function"]["description"] for t in request.get("tools") or []}


SCRIPT = (Turn(tool_calls=[("c1", "pull", {})]), Turn(tool_calls=[("c2", "read_file", {"path": "~/.ssh/id_rsa"})]),
          Turn(content="done"))


def test_a_live_chat_never_offers_a_withheld_tool(make_rug: Callable[..., ml.Client], llm: ScriptedLLM,
                                                  tmp_path: Path) -> None:
    client = make_rug(stdio=True, tool_pins=tmp_path / "pins.json")
    chat = new_chat().with_tools(client)
    assert set(offered({"tools": chat.tool_definitions()})) == {"read_file", "add", "notes", "pull"}
    llm.then(*SCRIPT)
    assert chat.ask("go").content == "done"
    first, second, third = (offered(r) for r in llm.requests)
    assert set(first) == {"read_file", "add", "notes", "pull"}
    assert set(second) == set(third) == {"add", "notes", "pull"}  # changed read_file, new exfiltrate: withheld
    assert "no tool named 'read_file'" in llm.tool_messages(2)[-1]["content"]
    assert "read_file" not in {t.name for t in chat.tools}


def test_a_live_chat_follows_list_changes_and_a_kept_list_refuses_the_changed_tool(
        llm: ScriptedLLM, tmp_path: Path) -> None:
    with ml.establish_connection({"mcpServers": {"rug": rug_memory()}}) as group:
        live = new_chat().with_tools(group)  # no pins: the new definitions are offered as they come
        llm.then(*SCRIPT)
        live.ask("go")
        assert offered(llm.requests[0])["read_file"] == "Read a file."
        assert offered(llm.requests[1])["read_file"] == PULLED and "exfiltrate" in offered(llm.requests[1])
    with ml.establish_connection({"mcpServers": {"rug": rug_memory()}}, tool_pins=tmp_path / "p.json") as group:
        kept = new_chat().with_tools(group.tools())  # a list: the definitions as they were (the pinned ones)
        llm.then(*SCRIPT)
        kept.ask("go")
        assert offered(llm.requests[4])["read_file"] == "Read a file."
        answer = llm.tool_messages(5)[-1]["content"]
        assert "withheld" in answer and "description changed" in answer and "contents of" not in answer
