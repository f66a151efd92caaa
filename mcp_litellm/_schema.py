"""JSON-schema rules per provider family, applied when a tool definition is built for a model.

By default a tool's input schema goes to LiteLLM untouched. With a model, what that provider
cannot take is rewritten here and nowhere else.
"""

from __future__ import annotations

import copy
from typing import Any


def provider_family(model: str | None) -> str:
    """Classify a LiteLLM model string: ``openai`` (default), ``gemini``, ``anthropic``."""
    if not model:
        return "openai"
    lowered = model.lower()
    provider = lowered.split("/", 1)[0] if "/" in lowered else ""
    if provider in {"gemini", "vertex_ai", "vertex_ai_beta"} or lowered.startswith("gemini"):
        return "gemini"
    if provider in {"anthropic", "bedrock"} and "claude" in lowered or lowered.startswith("claude"):
        return "anthropic"
    return "openai"


def object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """Ensure a top-level object schema (an empty or missing schema becomes ``{"type": "object"}``)."""
    if not schema:
        return {"type": "object", "properties": {}}
    if schema.get("type") == "object" or "properties" in schema:
        return schema
    return {"type": "object", "properties": {"value": schema}, "required": ["value"]}


def schema_for_model(schema: dict[str, Any] | None, model: str | None) -> dict[str, Any]:
    """The parameters schema to send for ``model`` (a deep copy when anything changes)."""
    result = object_schema(schema)
    family = provider_family(model)
    if family == "openai":
        return result
    result = copy.deepcopy(result)
    if family == "anthropic":
        result.pop("title", None)
    return result
