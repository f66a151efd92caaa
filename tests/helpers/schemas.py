"""A JSON schema with every construct the provider rules rewrite (refs, recursion, const, enums, unions, formats)."""

from __future__ import annotations

from typing import Any

COMPLEX: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Order",
    "type": "object",
    "additionalProperties": False,
    "$defs": {
        "Item": {
            "title": "Item",
            "type": "object",
            "properties": {
                "sku": {"type": "string", "format": "uuid"},
                "quantity": {"type": "integer", "exclusiveMinimum": 0},
            },
            "required": ["sku", "quantity"],
            "additionalProperties": False,
        },
        "Node": {"type": "object", "properties": {"label": {"type": "string"},
                                                  "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}},
    },
    "properties": {
        "kind": {"const": "order", "title": "Kind"},
        "version": {"type": "integer", "const": 2},
        "priority": {"type": "integer", "enum": [1, 2, 3]},
        "status": {"type": "string", "enum": ["new", "paid"]},
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "description": "A note."},
        "nickname": {"type": ["string", "null"]},
        "payment": {"oneOf": [
            {"type": "object", "properties": {"card": {"type": "string"}}, "required": ["card"]},
            {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]},
        ]},
        "address": {"allOf": [{"type": "object", "properties": {"street": {"type": "string"}}, "required": ["street"]},
                              {"properties": {"zip": {"type": "string"}}, "required": ["zip"]}]},
        "tree": {"$ref": "#/$defs/Node"},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["kind", "items", "ghost"],
}
