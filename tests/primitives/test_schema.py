"""Provider schema rules (``_schema``), checked per provider family and against LiteLLM's own conversions."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import mcp_litellm as ml
from mcp_litellm._core.schema import provider_family, schema_for_model
from tests.helpers.schemas import COMPLEX


def walk(node: Any):
    """Every dict in a schema tree."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def all_keys(schema: Any) -> set[str]:
    return {key for node in walk(schema) for key in node}


@pytest.mark.parametrize(("model", "family"), [
    (None, "openai"), ("gpt-4o-mini", "openai"), ("openai/gpt-4o", "openai"), ("azure/my-deployment", "openai"),
    ("openrouter/anthropic/claude-3.5-sonnet", "openai"), ("ollama/llama3", "openai"),
    ("anthropic/claude-3-5-sonnet-latest", "anthropic"), ("claude-3-haiku-20240307", "anthropic"),
    ("bedrock/anthropic.claude-3-sonnet", "anthropic"), ("vertex_ai/claude-3-5-sonnet@20240620", "anthropic"),
    ("gemini/gemini-2.0-flash", "gemini"), ("gemini-1.5-pro", "gemini"), ("vertex_ai/gemini-1.5-pro", "gemini"),
    ("bedrock/amazon.nova-pro-v1:0", "openai"),
])
def test_provider_family(model, family):
    assert provider_family(model) == family


@pytest.mark.parametrize("model", [None, "gpt-4o-mini", "openai/gpt-4o", "groq/llama3-70b"])
def test_openai_family_gets_the_schema_untouched_as_a_copy(model):
    original = copy.deepcopy(COMPLEX)
    result = schema_for_model(COMPLEX, model)
    assert result == original
    assert result is not COMPLEX and result["properties"] is not COMPLEX["properties"]
    assert original == COMPLEX, "the tool's own schema must never be modified"


@pytest.mark.parametrize("schema", [None, {}])
def test_a_missing_schema_becomes_an_empty_object_for_every_family(schema):
    for model in (None, "anthropic/claude-3-5-sonnet", "gemini/gemini-2.0-flash"):
        result = schema_for_model(schema, model)
        assert result["type"] == "object"


def test_a_schema_with_properties_but_no_type_becomes_an_object():
    assert schema_for_model({"properties": {"a": {"type": "string"}}}, None)["type"] == "object"


def test_anthropic_drops_top_level_title_and_schema_only():
    result = schema_for_model(COMPLEX, "anthropic/claude-3-5-sonnet-latest")
    assert "title" not in result and "$schema" not in result
    assert result["$defs"]["Item"]["title"] == "Item", "nested schemas stay untouched"
    assert result["properties"] == COMPLEX["properties"]
    assert result["additionalProperties"] is False


def test_anthropic_merges_top_level_combinators_into_properties():
    schema = {"type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"],
              "anyOf": [{"properties": {"path": {"type": "string"}, "mode": {"type": "integer"}},
                         "required": ["path"]},
                        {"$ref": "#/$defs/Url"}],
              "$defs": {"Url": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}}}
    result = schema_for_model(schema, "claude-3-haiku-20240307")
    assert "anyOf" not in result
    assert set(result["properties"]) == {"mode", "path", "url"}
    assert result["properties"]["mode"] == {"type": "string"}, "top-level properties win"
    assert result["required"] == ["mode"], "only names every alternative requires become required"


def test_gemini_inlines_refs_and_drops_unsupported_keywords():
    result = schema_for_model(COMPLEX, "gemini/gemini-2.0-flash")
    keys = all_keys(result)
    for gone in ("$ref", "$defs", "$schema", "additionalProperties", "title", "const", "oneOf", "allOf",
                 "exclusiveMinimum"):
        assert gone not in keys, gone
    assert result["type"] == "object"
    item = result["properties"]["items"]["items"]
    assert item["type"] == "object" and set(item["properties"]) == {"sku", "quantity"}
    assert item["required"] == ["sku", "quantity"]
    assert "exclusiveMinimum: 0" in item["properties"]["quantity"]["description"]
    assert "Format: uuid" in item["properties"]["sku"]["description"]
    assert result["required"] == ["kind", "items"], "required names without a property are dropped"


def test_gemini_keeps_the_meaning_of_const_enum_oneof_and_nullables():
    props = schema_for_model(COMPLEX, "gemini/gemini-2.0-flash")["properties"]
    assert props["kind"] == {"type": "string", "enum": ["order"]}
    assert props["version"]["type"] == "integer" and "Must be 2." in props["version"]["description"]
    assert "enum" not in props["priority"] and "One of: 1, 2, 3." in props["priority"]["description"]
    assert props["status"]["enum"] == ["new", "paid"]
    assert [set(b["properties"]) for b in props["payment"]["anyOf"]] == [{"card"}, {"iban"}]
    assert props["note"] == {"type": "string", "nullable": True, "default": None, "description": "A note."}
    assert props["nickname"] == {"type": "string", "nullable": True}
    assert set(props["address"]["properties"]) == {"street", "zip"}
    assert props["address"]["required"] == ["street", "zip"]
    assert props["metadata"] == {"type": "object", "description": "An object with any keys and string values."}


def test_gemini_cuts_recursive_references():
    tree = schema_for_model(COMPLEX, "gemini/gemini-2.0-flash")["properties"]["tree"]
    children = tree["properties"]["children"]["items"]
    assert children["type"] == "object" and "recursive reference to Node" in children["description"]
    assert "$ref" not in json.dumps(tree)


def test_gemini_flattens_a_top_level_union():
    schema = {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                        {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}]}
    result = schema_for_model(schema, "gemini-1.5-pro")
    assert result["type"] == "object" and set(result["properties"]) == {"a", "b"} and "anyOf" not in result


def test_litellm_gemini_conversion_keeps_what_we_prepared():
    """Run LiteLLM's own Gemini schema conversion after ours: nothing we kept is lost again."""
    from litellm.llms.vertex_ai.common_utils import build_vertex_schema

    ours = schema_for_model(COMPLEX, "gemini/gemini-2.0-flash")
    converted = build_vertex_schema(copy.deepcopy(ours))
    props = converted["properties"]
    assert props["kind"]["enum"] == ["order"]
    assert "Must be 2." in props["version"]["description"]
    assert "One of: 1, 2, 3." in props["priority"]["description"]
    assert len(props["payment"]["anyOf"]) == 2
    assert props["note"]["nullable"] is True
    assert set(props["items"]["items"]["properties"]) == {"sku", "quantity"}
    # and LiteLLM alone would have dropped the const (why the rules exist)
    raw = build_vertex_schema(copy.deepcopy(COMPLEX))
    assert "enum" not in raw["properties"]["kind"]


def test_litellm_anthropic_sanitizer_keeps_what_we_prepared():
    from litellm.litellm_core_utils.prompt_templates.common_utils import sanitize_input_schema_for_anthropic

    schema = {"type": "object", "title": "T", "properties": {"x": {"type": "string"}},
              "oneOf": [{"properties": {"y": {"type": "integer"}}, "required": ["y"]}]}
    sent = sanitize_input_schema_for_anthropic(schema_for_model(schema, "anthropic/claude-3-5-sonnet-latest"))
    assert set(sent["properties"]) == {"x", "y"} and sent["required"] == ["y"]


def test_fixture_tool_with_defs_converts_per_family(make_client):
    client = make_client("memory")
    tool = client.tool("store_person")
    assert "$defs" in tool.input_schema
    assert tool.to_litellm()["function"]["parameters"] == tool.input_schema
    gemini = tool.to_litellm("gemini/gemini-2.0-flash")
    assert gemini["type"] == "function" and gemini["function"]["name"] == "store_person"
    person = gemini["function"]["parameters"]["properties"]["person"]
    assert "$ref" not in json.dumps(gemini)
    assert set(person["properties"]["addresses"]["items"]["properties"]) == {"street", "zip"}
    tools = ml.to_litellm_tools(client.tools(), model="anthropic/claude-3-5-sonnet-latest")
    assert [t["function"]["name"] for t in tools] == [t.name for t in client.tools()]
    assert all(t["function"]["parameters"]["type"] == "object" for t in tools)
