"""JSON-schema rules per provider family, applied when a tool definition is built for a model.

Without a model a tool's input schema goes to LiteLLM as the server sent it (a copy, always a
top-level object). With a model, what that provider cannot take is rewritten here and nowhere else:

- ``openai`` (default, and every provider not named below): untouched.
- ``anthropic`` (``anthropic/...``, ``claude-...``, Claude on Bedrock / Vertex): LiteLLM keeps only
  ``type``/``properties``/``required``/``additionalProperties``/``$defs`` at the top level, so the
  top-level ``title`` and ``$schema`` go and top-level ``anyOf``/``oneOf``/``allOf`` branches are merged
  into the object (instead of being dropped by LiteLLM). Nested schemas are untouched.
- ``gemini`` (``gemini/...``, ``vertex_ai/...``): Gemini takes an OpenAPI subset. LiteLLM already inlines
  ``$ref``, drops unknown keywords and upper-cases types; it silently loses ``const``, ``oneOf``,
  ``allOf``, non-string ``enum`` and most ``format`` values, and keeps only ``anyOf`` where one appears.
  So before LiteLLM sees the schema we inline ``$ref``/``$defs`` (cutting recursion), turn ``const``
  into a one-value ``enum`` (strings) or a description note (other types), ``oneOf`` into ``anyOf``,
  merge ``allOf``, turn ``["T", "null"]`` types and ``anyOf [T, null]`` into ``nullable``, move
  constraints Gemini lacks (``format``, ``exclusiveMinimum``, an ``enum`` with a non-string or an empty
  string, an ``enum`` on a non-string type ...) into the
  description, and drop ``additionalProperties``, ``$schema``, ``title`` and other unsupported keywords.
  The result passes through LiteLLM's own conversion unchanged in meaning.
"""

from __future__ import annotations

import json

from mcp_litellm._core.families import SchemaDialect, model_family

_GEMINI_KEEP = {
    "type", "format", "description", "nullable", "default", "items", "minItems", "maxItems", "enum",
    "properties", "required", "minProperties", "maxProperties", "minimum", "maximum", "minLength",
    "maxLength", "pattern", "example", "anyOf",
}
_GEMINI_FORMATS = {"enum", "date-time"}
_JSON_TYPES = {"string", "number", "integer", "boolean", "array", "object", "null"}
_NOTED = ("exclusiveMinimum", "exclusiveMaximum", "multipleOf", "uniqueItems")
_MAX_DEPTH = 40


def provider_family(model: str | None) -> SchemaDialect:
    """The JSON-schema dialect ``model`` takes: ``"openai"`` (the default: JSON Schema as it is), ``"gemini"``
    or ``"anthropic"`` (Claude on Bedrock and Vertex AI too); the rule is :func:`~._core.families.model_family`."""
    return model_family(model).schema


def _copy_json(value: object) -> object:
    """A deep copy of JSON-shaped data (dicts, lists, scalars); several times faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_json(item) for item in value]
    return value


def _object(value: object) -> dict[str, object]:
    """``value`` when it is a JSON object, else a new empty one."""
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[object]:
    """``value`` when it is a JSON array, else a new empty one."""
    return value if isinstance(value, list) else []


def object_schema(schema: dict[str, object] | None) -> dict[str, object]:
    """A deep copy of ``schema`` that is a top-level object schema.

    An empty or missing schema becomes ``{"type": "object", "properties": {}}``; a schema with
    properties (or only combinators) but no type gets ``"type": "object"``.
    """
    if not schema:
        return {"type": "object", "properties": {}}
    result = {key: _copy_json(value) for key, value in schema.items()}
    if "type" not in result and any(k in result for k in ("properties", "anyOf", "oneOf", "allOf", "required")):
        result["type"] = "object"
    if result.get("type") != "object":
        return {"type": "object", "properties": {"value": result}, "required": ["value"]}
    return result


def schema_for_model(schema: dict[str, object] | None, model: str | None) -> dict[str, object]:
    """The parameters schema to send for ``model`` (always a new dict; ``schema`` is never modified)."""
    result = object_schema(schema)
    family = provider_family(model)
    if family == "anthropic":
        return anthropic_schema(result)
    if family == "gemini":
        return gemini_schema(result)
    return result


# -- anthropic ------------------------------------------------------------------------------------


def anthropic_schema(schema: dict[str, object]) -> dict[str, object]:
    """Top-level rules for Anthropic (see the module docstring). Takes ownership of ``schema``."""
    result = merge_top_level_combinators(schema)
    for key in ("title", "$schema", "$id"):
        result.pop(key, None)
    return result


def merge_top_level_combinators(schema: dict[str, object]) -> dict[str, object]:
    """Fold top-level ``anyOf``/``oneOf``/``allOf`` object branches into the object's own properties.

    ``required`` gains the names every branch requires (``anyOf``/``oneOf``) or any branch requires
    (``allOf``); properties already defined at the top level win over branch ones.
    """
    defs = {**_object(schema.get("definitions")), **_object(schema.get("$defs"))}
    for combinator in ("allOf", "anyOf", "oneOf"):
        branches = schema.get(combinator)
        if not isinstance(branches, list):
            continue
        resolved = [_resolve_local(b, defs) for b in branches]
        if not all(isinstance(b, dict) and (b.get("type", "object") == "object") for b in resolved):
            continue
        schema.pop(combinator)
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            properties = schema["properties"] = {}
        required_sets = []
        for branch in map(_object, resolved):
            for name, sub in _object(branch.get("properties")).items():
                properties.setdefault(name, sub)
            required_sets.append(set(_array(branch.get("required"))))
        extra = set.union(*required_sets) if combinator == "allOf" else set.intersection(*required_sets)
        if required_sets and extra:
            required = list(_array(schema.get("required")))
            schema["required"] = required + sorted(extra - set(required), key=str)
    return schema


def _resolve_local(node: object, defs: dict[str, object]) -> object:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target = defs.get(node["$ref"].rsplit("/", 1)[-1])
        if isinstance(target, dict):
            return {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


# -- gemini ---------------------------------------------------------------------------------------


def gemini_schema(schema: dict[str, object]) -> dict[str, object]:
    """Gemini's rules (see the module docstring). Takes ownership of ``schema``."""
    defs = {**_object(schema.pop("definitions", None)), **_object(schema.pop("$defs", None))}
    merged = merge_top_level_combinators(_object(_inline_refs(schema, defs, (), 0)))
    result = _gemini_node(merged, 0)
    result["type"] = "object"
    result.pop("nullable", None)
    return result


def _inline_refs(node: object, defs: dict[str, object], chain: tuple[str, ...], depth: int) -> object:
    if depth > _MAX_DEPTH:
        return {"type": "object", "description": "(nested too deeply to describe)"}
    if isinstance(node, list):
        return [_inline_refs(item, defs, chain, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if name in chain or name not in defs:
            what = "recursive" if name in chain else "unresolved"
            note = f"({what} reference to {name})"
            return {"type": "object", "description": f"{siblings.get('description', '')} {note}".strip()}
        target = _inline_refs(_copy_json(defs[name]), defs, (*chain, name), depth + 1)
        return {**_object(target), **_object(_inline_refs(siblings, defs, chain, depth + 1))}
    return {k: _inline_refs(v, defs, chain, depth + 1) for k, v in node.items() if k not in ("$defs", "definitions")}


def _note(node: dict[str, object], text: str) -> None:
    description = node.get("description")
    node["description"] = f"{description} {text}" if description else text


def _literal(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _gemini_node(node: object, depth: int) -> dict[str, object]:
    """Rewrite one subschema (and its children) for Gemini."""
    if node is True or not isinstance(node, dict) or depth > _MAX_DEPTH:
        return {}
    node = dict(node)
    if "oneOf" in node:  # exclusivity is lost, the alternatives are kept
        node["anyOf"] = [*_array(node.get("anyOf")), *_array(node.pop("oneOf"))]
    if isinstance(node.get("allOf"), list):
        node = _merge_all_of(node)
    types = node.get("type")
    if isinstance(types, list):
        non_null = [t for t in types if t != "null"]
        if len(non_null) < len(types):
            node["nullable"] = True
        if len(non_null) == 1:
            node["type"] = non_null[0]
        else:
            node.pop("type")
            node["anyOf"] = [*_array(node.get("anyOf")), *({"type": t} for t in non_null)]
    kind = node.get("type")
    if isinstance(kind, str) and kind.lower() not in _JSON_TYPES:  # "any", "file" ...: Gemini knows none
        node.pop("type")
        _note(node, f"Type: {kind}.")
    if "const" in node:
        value = node.pop("const")
        if isinstance(value, str):
            node["enum"] = [value]
            node.setdefault("type", "string")
        else:
            _note(node, f"Must be {_literal(value)}.")
    enum = node.get("enum")
    if isinstance(enum, list):
        _gemini_enum(node, enum)
    fmt = node.get("format")
    if fmt is not None and fmt not in _GEMINI_FORMATS:
        node.pop("format")
        _note(node, f"Format: {fmt}.")
    extra = node.get("additionalProperties")
    if isinstance(extra, dict) and not node.get("properties"):
        value_type = extra.get("type")
        _note(node, "An object with any keys" + (f" and {value_type} values." if isinstance(value_type, str) else "."))
    for key in _NOTED:
        if key in node:
            _note(node, f"{key}: {_literal(node[key])}.")
    out: dict[str, object] = {k: v for k, v in node.items() if k in _GEMINI_KEEP}
    properties = out.get("properties")
    if isinstance(properties, dict):
        out["properties"] = properties = {name: _gemini_node(sub, depth + 1) for name, sub in properties.items()}
        required = out.get("required")
        if isinstance(required, list):
            out["required"] = [n for n in required if n in properties]
        out.setdefault("type", "object")
    elif "required" in out:
        out.pop("required")
    if "items" in out:
        items = out["items"]
        out["items"] = _gemini_node(items[0] if isinstance(items, list) and items else items, depth + 1)
    if isinstance(out.get("anyOf"), list):
        out = _gemini_any_of(out, depth)
    return out


def _gemini_enum(node: dict[str, object], enum: list[object]) -> None:
    """Gemini takes ``enum`` only on strings and only of non-empty strings (LiteLLM sends ``""`` as
    ``null``, which Gemini refuses): any other enum goes into the description, so no value is lost."""
    strings = all(isinstance(v, str) for v in enum)
    kind = node.get("type")
    if strings and enum and all(enum) and kind in (None, "string"):
        node["type"] = "string"
        return
    node.pop("enum")
    if kind is None and "anyOf" not in node and enum:
        kinds = {_json_type(v) for v in enum}
        if len(kinds) == 1 or kinds == {"integer", "number"}:
            node["type"] = "number" if kinds == {"integer", "number"} else kinds.pop()
    if enum:
        _note(node, "One of: " + ", ".join(_literal(v) for v in enum) + ".")


def _json_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "null" if value is None else "object" if isinstance(value, dict) else "array"


def _merge_all_of(node: dict[str, object]) -> dict[str, object]:
    branches = [b for b in _array(node.pop("allOf")) if isinstance(b, dict)]
    merged: dict[str, object] = {}
    properties: dict[str, object] = {}
    required: list[object] = []
    for branch in [*branches, node]:
        for key, value in branch.items():
            if key == "properties" and isinstance(value, dict):
                properties.update(value)
                merged["properties"] = properties
            elif key == "required" and isinstance(value, list):
                required += [n for n in value if n not in required]
                merged["required"] = required
            else:
                merged[key] = value
    return merged


def _gemini_any_of(node: dict[str, object], depth: int) -> dict[str, object]:
    branches = [_gemini_node(b, depth + 1) for b in _array(node.pop("anyOf"))]
    non_null = [b for b in branches if b.get("type") != "null"]
    if len(non_null) < len(branches):
        node["nullable"] = True
    if len(non_null) == 1:  # a single alternative: inline it so sibling keywords survive
        single = non_null[0]
        description = node.pop("description", None)
        merged = {**single, **{k: v for k, v in node.items() if k != "type" or "type" not in single}}
        if description:
            merged["description"] = f"{description} {single['description']}" if single.get("description") \
                else description
        return merged
    if not non_null:
        node.setdefault("type", "string")
        return node
    if node.get("nullable"):
        for branch in non_null:
            branch["nullable"] = True
    node["anyOf"] = non_null
    return node
