"""What a model provider rejects in tool definitions, checked on the definitions as they are sent.

Pure functions over JSON data (no LiteLLM, no I/O): ``mcp-litellm doctor`` feeds them the definitions
mcp_litellm builds for a model (``Tool.to_litellm(model)``) and, for Gemini, the declarations LiteLLM
makes of those. Each rule names its source; the table is small on purpose: only rules that make the
provider answer HTTP 400, not style advice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from mcp_litellm._core.families import NameRules, model_family

Level = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Finding:
    """One thing the doctor found: ``error`` = the provider rejects the request; ``warning`` = it works
    only in some uses; ``note`` = changed on the way (the model sees something looser)."""

    level: Level
    message: str
    tool: str | None = None


@dataclass(frozen=True)
class NameRule:
    """A provider's rule for function/tool names."""

    pattern: str
    text: str
    source: str

    def accepts(self, name: str) -> bool:
        """Whether the provider takes ``name``."""
        return re.fullmatch(self.pattern, name) is not None


NAME_RULES: dict[str, NameRule] = {
    # OpenAI API reference, chat completions, tools[].function.name.
    "openai": NameRule(r"[a-zA-Z0-9_-]{1,64}", "letters, digits, '_' and '-', at most 64 characters",
                       "https://platform.openai.com/docs/api-reference/chat/create"),
    # Anthropic tool use docs, tool definition "name" (older docs said {1,64}).
    "anthropic": NameRule(r"[a-zA-Z0-9_-]{1,128}", "letters, digits, '_' and '-', at most 128 characters",
                          "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use"),
    # Gemini API FunctionDeclaration.name (a-z A-Z 0-9 _ : . -, max 64) and Vertex AI's, which adds
    # "must start with a letter or an underscore"; the stricter of the two.
    "gemini": NameRule(r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}",
                       "starts with a letter or '_', then letters, digits, '_', '.', ':' or '-'; at most 64",
                       "https://ai.google.dev/api/caching#FunctionDeclaration"),
    # Bedrock Converse API ToolSpecification.name: [a-zA-Z0-9_-]+, length 1..64.
    "bedrock": NameRule(r"[a-zA-Z0-9_-]{1,64}", "letters, digits, '_' and '-', at most 64 characters",
                        "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html"),
}

MAX_TOOLS: dict[str, int] = {
    # 400 "Invalid 'tools': array too long. Expected an array with maximum length 128" (code array_above_max_length).
    "openai": 128,
}

_GEMINI_TYPES_EXTRA = {"NULL"}
"""Gemini's Type enum has NULL (LiteLLM's ``Schema`` type list predates it)."""


def rules_family(provider: str | None, model: str) -> NameRules | None:
    """Which tool-name rule set applies to ``model`` (``provider`` as ``litellm.get_llm_provider`` reports it):
    ``openai``, ``anthropic``, ``gemini``, ``bedrock``, or ``None`` when no provider rules are known; the rule is
    :func:`~._core.families.model_family`."""
    return model_family(model, provider).names


# -- schema walking ---------------------------------------------------------------------------------


def _children(node: dict[str, object], path: str) -> Iterator[tuple[str, object]]:
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            yield f"{path}.{name}" if path else name, sub
    items = node.get("items")
    if isinstance(items, dict):
        yield f"{path}[]", items
    elif isinstance(items, list):
        for i, sub in enumerate(items):
            yield f"{path}[{i}]", sub
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        branches = node.get(key)
        if isinstance(branches, list):
            for i, sub in enumerate(branches):
                yield f"{path}<{key}[{i}]>", sub
    for key in ("$defs", "definitions"):
        defs = node.get(key)
        if isinstance(defs, dict):
            for name, sub in defs.items():
                yield f"{key}.{name}", sub
    for key in ("additionalProperties", "not"):
        if isinstance(node.get(key), dict):
            yield f"{path}<{key}>", node[key]


def walk(schema: object, path: str = "", depth: int = 0) -> Iterator[tuple[str, dict[str, object]]]:
    """Every subschema of ``schema`` with a readable path (``a.b[]`` = items of property ``b`` of ``a``)."""
    if not isinstance(schema, dict) or depth > 64:
        return
    yield path, schema
    for child_path, child in _children(schema, path):
        yield from walk(child, child_path, depth + 1)


def keywords(schema: object) -> set[str]:
    """The JSON Schema keywords used anywhere in ``schema`` (an empty ``properties: {}`` or ``required: []``
    says nothing, so it does not count)."""
    return {key for _, node in walk(schema) for key, value in node.items() if value not in ({}, [])}


def _where(path: str) -> str:
    return f"at '{path}'" if path else "at the top level"


def _types(node: dict[str, object]) -> set[str]:
    kind = node.get("type")
    if isinstance(kind, str):
        return {kind.lower()}
    if isinstance(kind, list):
        return {str(k).lower() for k in kind}
    return set()


# -- checks -----------------------------------------------------------------------------------------


def check_names(family: str, names: list[str]) -> list[Finding]:
    """The names ``family``'s provider rejects."""
    rule = NAME_RULES.get(family)
    if rule is None:
        return []
    return [Finding("error", f"{family} rejects the name {name!r}: {rule.text} ({rule.source})", name)
            for name in names if not rule.accepts(name)]


def check_count(family: str, count: int) -> list[Finding]:
    """Too many tools for one request (a ``warning``: ``ml.Chat`` offers a tool search instead beyond 128)."""
    limit = MAX_TOOLS.get(family)
    if limit is None or count <= limit:
        return []
    return [Finding("warning", f"{count} tools: {family} takes at most {limit} per request; ml.Chat switches to "
                               "tool search (tool_search='auto'), passing them all to litellm yourself fails")]


def check_openai_schema(name: str, parameters: dict[str, object]) -> list[Finding]:
    """OpenAI (non-strict function calling): a top-level object schema, and ``items`` on every array
    (400 ``invalid_function_parameters``: "array schema missing items")."""
    found = []
    if parameters.get("type") != "object":
        found.append(Finding("error", "openai rejects parameters whose top level is not \"type\": \"object\"", name))
    for path, node in walk(parameters):
        if "array" in _types(node) and "items" not in node:
            found.append(Finding("error", f"openai rejects an array schema without 'items' {_where(path)} "
                                          "(\"array schema missing items\")", name))
    return found


def check_anthropic_schema(name: str, parameters: dict[str, object]) -> list[Finding]:
    """Anthropic: ``input_schema`` must be a top-level object (LiteLLM keeps only the top-level keys
    Anthropic takes, so a top-level ``anyOf``/``oneOf``/``allOf`` left there is dropped, not rejected)."""
    found = []
    if parameters.get("type") != "object":
        found.append(Finding("error", "anthropic rejects an input_schema whose top level is not an object", name))
    for key in ("anyOf", "oneOf", "allOf"):
        if key in parameters:
            found.append(Finding("note", f"the top-level '{key}' is dropped by LiteLLM for anthropic; the model "
                                         "sees only the object's own properties", name))
    return found


def check_gemini_declaration(declaration: dict[str, object], fields: set[str], types: set[str]) -> list[Finding]:
    """Gemini on the function declaration LiteLLM sends: every keyword is a field of Gemini's ``Schema``
    ("Unknown name ... Cannot find field"), one known type, ``enum`` only on strings and only non-empty
    strings ("only allowed for STRING type", "cannot be empty"), ``items`` on arrays, ``required`` names
    among the properties ("property is not defined"). ``fields``/``types``: LiteLLM's ``Schema``."""
    name = str(declaration.get("name", ""))
    found: list[Finding] = []
    parameters = declaration.get("parameters")
    allowed_types = {t.upper() for t in types} | _GEMINI_TYPES_EXTRA
    for path, node in walk(parameters):
        unknown = sorted(set(node) - fields)
        if unknown:
            found.append(Finding("error", f"gemini rejects the keyword(s) {', '.join(unknown)} {_where(path)}", name))
        kind = node.get("type")
        if kind is not None and (not isinstance(kind, str) or kind.upper() not in allowed_types):
            found.append(Finding("error", f"gemini rejects the type {kind!r} {_where(path)}", name))
        enum = node.get("enum")
        if isinstance(enum, list):
            if isinstance(kind, str) and kind.upper() != "STRING":
                found.append(Finding("error", f"gemini allows 'enum' only on strings, found on {kind} {_where(path)}",
                                     name))
            bad = [v for v in enum if not isinstance(v, str) or not v]
            if bad:
                shown = ", ".join("null" if v is None else repr(v) for v in bad)
                found.append(Finding("error", f"gemini rejects the enum value(s) {shown} {_where(path)} (enum values "
                                              "must be non-empty strings; LiteLLM sends '' as null)", name))
        if isinstance(kind, str) and kind.upper() == "ARRAY" and "items" not in node:
            found.append(Finding("error", f"gemini rejects an array without 'items' {_where(path)}", name))
        required = node.get("required")
        properties = node.get("properties")
        if isinstance(required, list):
            missing = [r for r in required if not isinstance(properties, dict) or r not in properties]
            if missing:
                found.append(Finding("error", f"gemini rejects 'required' names that are not properties "
                                              f"({', '.join(map(str, missing))}) {_where(path)}", name))
    return found


_HARMLESS = {"title", "$schema", "$id", "$comment", "examples", "definitions", "$defs", "$ref", "strict"}
"""Keywords whose loss changes nothing the model relies on ($ref/$defs are inlined, not lost)."""


def dropped_keywords(name: str, family: str, original: dict[str, object], sent: object) -> list[Finding]:
    """A ``note`` naming the keywords of the server's schema that do not reach ``family``'s model."""
    lost = sorted(keywords(original) - keywords(sent) - _HARMLESS)
    if not lost:
        return []
    return [Finding("note", f"not sent to {family}: {', '.join(lost)} (rewritten or dropped on the way; the model "
                            "sees a looser schema, the server still checks the arguments)", name)]
