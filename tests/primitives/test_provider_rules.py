"""The provider rules ``mcp-litellm doctor`` applies (pure: no servers), checked on LiteLLM's own output."""

from __future__ import annotations

import pytest

from mcp_litellm._core.provider_rules import (
    NAME_RULES,
    check_anthropic_schema,
    check_count,
    check_gemini_declaration,
    check_names,
    check_openai_schema,
    dropped_keywords,
    rules_family,
)
from mcp_litellm._llm import gemini_declarations, gemini_schema_fields, llm_provider


@pytest.mark.parametrize(("family", "name", "accepted"), [
    ("openai", "read_file-2", True), ("openai", "files.read", False), ("openai", "x" * 64, True),
    ("openai", "x" * 65, False), ("openai", "", False), ("openai", "1st", True),
    ("anthropic", "x" * 128, True), ("anthropic", "x" * 129, False), ("anthropic", "a b", False),
    ("gemini", "1st", False), ("gemini", "-x", False), ("gemini", "_a.b:c-d", True), ("gemini", "x" * 65, False),
    ("bedrock", "a.b", False), ("bedrock", "a-b_c", True),
])
def test_name_rules(family, name, accepted):
    assert NAME_RULES[family].accepts(name) is accepted
    assert (check_names(family, [name]) == []) is accepted


@pytest.mark.parametrize(("model", "family"), [
    ("gpt-4o", "openai"), ("openai/gpt-4o-mini", "openai"), ("azure/my-deployment", "openai"),
    ("anthropic/claude-sonnet-4-5", "anthropic"), ("claude-sonnet-4-5", "anthropic"),
    ("vertex_ai/claude-3-5-sonnet", "anthropic"), ("vertex_ai/gemini-2.5-pro", "gemini"),
    ("gemini/gemini-2.5-flash", "gemini"), ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock"),
    ("ollama/llama3", None), ("a-model-nobody-knows", None),
])
def test_rules_family_from_litellm_provider(model, family):
    _, provider = llm_provider(model)
    assert rules_family(provider, model) == family


def test_unknown_model_has_no_provider(capsys):
    assert llm_provider("a-model-nobody-knows") == ("a-model-nobody-knows", None)
    assert capsys.readouterr().out == ""  # LiteLLM prints its provider list; JSON on stdout must stay clean
    assert llm_provider("openai/gpt-4o-mini") == ("gpt-4o-mini", "openai")


def test_openai_arrays_need_items_everywhere():
    schema = {"type": "object", "properties": {
        "a": {"type": ["array", "null"]},
        "b": {"anyOf": [{"type": "array"}, {"type": "string"}]},
        "c": {"type": "array", "items": {"type": "string"}},
    }}
    messages = [f.message for f in check_openai_schema("t", schema)]
    assert len(messages) == 2
    assert "at 'a'" in messages[0] and "at 'b<anyOf[0]>'" in messages[1]
    assert check_openai_schema("t", {"type": "string"})[0].message.startswith("openai rejects parameters")


def test_too_many_tools_is_a_warning():
    assert check_count("openai", 128) == []
    [warning] = check_count("openai", 129)
    assert warning.level == "warning" and "tool search" in warning.message
    assert check_count("anthropic", 500) == []


def gemini_check(declaration):
    shape = gemini_schema_fields()
    assert shape is not None
    return [f.message for f in check_gemini_declaration(declaration, *shape)]


@pytest.mark.parametrize(("parameters", "fragment"), [
    ({"type": "object", "additionalProperties": False}, "keyword(s) additionalProperties at the top level"),
    ({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}, "type ['string', 'null'] at 'a'"),
    ({"type": "object", "properties": {"a": {"type": "integer", "enum": ["1"]}}}, "'enum' only on strings"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", ""]}}}, "enum value(s) '' at 'a'"),
    ({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", None]}}}, "enum value(s) null"),
    ({"type": "object", "properties": {"a": {"type": "array"}}}, "array without 'items' at 'a'"),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}, "(b) at the top level"),
])
def test_gemini_rejections(parameters, fragment):
    messages = gemini_check({"name": "t", "parameters": parameters})
    assert any(fragment in m for m in messages), messages


def test_gemini_is_checked_on_what_litellm_sends():
    """LiteLLM removes additionalProperties and adds missing array items: those never reach Gemini."""
    tool = {"type": "function", "function": {"name": "t", "description": "d", "parameters": {
        "type": "object", "additionalProperties": False,
        "properties": {"a": {"type": "array"}, "b": {"type": "string", "enum": ["x", ""]}}}}}
    [declaration] = gemini_declarations([tool]) or []
    assert declaration["name"] == "t"
    messages = gemini_check(declaration)
    assert len(messages) == 1 and "enum value(s) null at 'b'" in messages[0]
    assert gemini_check({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}}) == []


def test_dropped_keywords_skip_what_says_nothing():
    original = {"type": "object", "title": "T", "properties": {}, "additionalProperties": False,
                "$defs": {"P": {"type": "string", "format": "email"}}}
    [note] = dropped_keywords("t", "gemini", original, {"type": "object"})
    assert note.level == "note"
    assert note.message.startswith("not sent to gemini: additionalProperties, format (")
    assert dropped_keywords("t", "gemini", {"type": "object", "properties": {}}, {"type": "object"}) == []


def test_a_schema_litellm_cannot_convert_for_gemini_is_an_error_text():
    good = {"type": "function", "function": {"name": "ok", "description": "d", "parameters": {"type": "object"}}}
    schema: dict = {"type": "string"}
    for _ in range(120):  # past LiteLLM's depth limit (100) in every version (1.106.2 also refused anyOf: [null])
        schema = {"type": "object", "properties": {"a": schema}}
    too_deep = {"type": "function", "function": {"name": "bad", "description": "d", "parameters": schema}}
    converted = gemini_declarations([good, too_deep])
    assert converted is not None
    assert isinstance(converted[0], dict) and converted[0]["name"] == "ok"
    assert isinstance(converted[1], str) and converted[1].startswith("ValueError: Max depth"), converted[1]


def test_anthropic_top_level_object():
    assert check_anthropic_schema("t", {"type": "object", "properties": {}}) == []
    [error] = check_anthropic_schema("t", {"type": "array"})
    assert error.level == "error"
    [note] = check_anthropic_schema("t", {"type": "object", "anyOf": [{"type": "string"}]})
    assert note.level == "note" and "dropped by LiteLLM" in note.message


@pytest.mark.parametrize(("model", "names", "schema"), [
    ("gpt-4o", "openai", "openai"), ("openai/gpt-4o-mini", "openai", "openai"),
    ("azure/my-deployment", "openai", "openai"),
    ("anthropic/claude-sonnet-4-5", "anthropic", "anthropic"), ("claude-sonnet-4-5", "anthropic", "anthropic"),
    ("vertex_ai/claude-3-5-sonnet", "anthropic", "anthropic"), ("vertex_ai/gemini-2.5-pro", "gemini", "gemini"),
    ("gemini/gemini-2.5-flash", "gemini", "gemini"), ("gemini-2.5-flash", "gemini", "gemini"),
    ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock", "anthropic"),
    ("bedrock/converse/anthropic.claude-3-5-sonnet-20240620-v1:0", "bedrock", "anthropic"),
    ("bedrock/amazon.nova-pro-v1:0", "bedrock", "openai"),
    ("ollama/llama3", None, "openai"), ("openrouter/anthropic/claude-3.5-sonnet", None, "openai"),
    ("a-model-nobody-knows", None, "openai"),
])
def test_one_family_rule_gives_the_name_rules_and_the_schema_dialect(model, names, schema):
    """Claude on Bedrock takes Anthropic's schemas under Bedrock's name rules; an unknown model's schema goes
    as it is and no name rules are known: two traits of one family, the same with or without LiteLLM's word."""
    from mcp_litellm._core.families import Family, model_family
    from mcp_litellm._core.schema import provider_family

    _, provider = llm_provider(model)
    assert model_family(model, provider) == model_family(model) == Family(names, schema)
    assert rules_family(provider, model) == names
    assert provider_family(model) == schema
