"""Every schema problem ``mcp-litellm doctor`` flags for Gemini is fixed on the chat's own path: the
function declarations LiteLLM puts in the HTTP request to Gemini (mocked with respx) pass the doctor's
own checker."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp.server.mcpserver import MCPServer

import mcp_litellm as ml
from mcp_litellm._core.provider_rules import check_gemini_declaration
from mcp_litellm._llm import gemini_declarations, gemini_schema_fields
from tests.scripted_llm.respx_mock import litellm_respx
from tests.servers.doctor_server import SCHEMAS as DOCTOR_SCHEMAS


def _object(**properties: object) -> dict[str, object]:
    return {"type": "object", "properties": properties}


# What Gemini refuses (and the doctor flags) when sent as the server wrote it.
SCHEMAS: dict[str, dict[str, object]] = {
    **DOCTOR_SCHEMAS,  # no_items, empty_enum (excel-mcp-server's transform_range has the same), rich
    "const_empty": _object(separator={"const": ""}),
    "nullable_empty_enum": _object(mode={"type": ["string", "null"], "enum": ["a", ""]}),
    "items_empty_enum": _object(modes={"type": "array", "items": {"type": "string", "enum": ["", "x"]}}),
    "any_of_empty_enum": _object(mode={"anyOf": [{"type": "string", "enum": ["", "x"]}, {"type": "integer"}]}),
    "string_enum_on_integer": _object(level={"type": "integer", "enum": ["1", "2"]}),
    "empty_enum_list": _object(mode={"type": "string", "enum": []}),
    "unknown_type": _object(value={"type": "any"}),
    "required_not_a_property": {**_object(a={"type": "object", "properties": {}, "required": ["x"]}),
                                "required": ["a", "missing"]},
}


def _server() -> MCPServer:
    server = MCPServer("schemas")

    def plain(text: str = "") -> str:
        return text

    for name, schema in SCHEMAS.items():
        server.add_tool(plain, name=name, description=f"A tool whose schema is {name!r}.")
        tool = server._tool_manager.get_tool(name)
        assert tool is not None
        tool.parameters = schema
    return server


def _problems(declarations: list[dict[str, object]]) -> list[str]:
    shape = gemini_schema_fields()
    assert shape is not None, "this LiteLLM has no Gemini Schema type to check against"
    fields, types = shape
    return [f"{f.tool}: {f.message}" for d in declarations for f in check_gemini_declaration(d, fields, types)]


def test_the_doctor_flags_these_schemas_as_the_server_wrote_them():
    """The cases are real: LiteLLM's own conversion of the untouched schemas is what Gemini refuses (the
    others LiteLLM mends or loses silently, or the library's conversion used to break)."""
    raw = [{"type": "function", "function": {"name": name, "parameters": schema}} for name, schema in SCHEMAS.items()]
    declarations = gemini_declarations(raw)
    assert declarations is not None
    flagged = {d["name"] for d in declarations if isinstance(d, dict) and _problems([d])}
    assert flagged == {"empty_enum", "items_empty_enum", "any_of_empty_enum", "unknown_type",
                       "required_not_a_property"}


def test_what_the_chat_sends_gemini_passes_the_doctors_check():
    client = ml.client("schemas", config={"server": _server()})
    requests: list[dict[str, object]] = []
    reply = {"candidates": [{"content": {"role": "model", "parts": [{"text": "fine"}]}, "finishReason": "STOP",
                             "index": 0}],
             "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 2, "totalTokenCount": 6}}

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(json.loads(request.content))
        return httpx.Response(200, json=reply)

    try:
        with litellm_respx() as router:
            router.post(url__regex=r"https://generativelanguage\.googleapis\.com/.*").mock(side_effect=answer)
            chat = ml.Chat("gemini/gemini-2.0-flash", api_key="gm-test-key", tool_search=False)
            assert chat.with_tools(*client.tools()).ask("hello").content == "fine"
    finally:
        client.stop()
    [body] = requests
    declarations = [d for tools in body["tools"] for d in tools.get("function_declarations", [])]  # type: ignore[attr-defined]
    assert {d["name"] for d in declarations} == set(SCHEMAS)
    assert _problems(declarations) == []
    by_name = {d["name"]: d["parameters"] for d in declarations}
    # what the enum said is kept for the model, in the description
    assert '"fast", ""' in by_name["empty_enum"]["properties"]["mode"]["description"]
    assert by_name["empty_enum"]["properties"]["mode"]["type"].lower() == "string"
    assert '"1", "2"' in by_name["string_enum_on_integer"]["properties"]["level"]["description"]


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_the_schema_the_library_builds_for_gemini_passes_the_doctors_check(name):
    tool = ml.Tool(name=name, mcp_name=name, description="", input_schema=SCHEMAS[name], client=None)
    declarations = gemini_declarations([tool.to_litellm("gemini/gemini-2.5-flash")])
    assert declarations is not None and isinstance(declarations[0], dict), declarations
    assert _problems([declarations[0]]) == []
