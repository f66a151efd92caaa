"""Which provider family a model belongs to: the one rule behind the schema dialect a tool's parameters are
sent in (:func:`mcp_litellm._core.schema.provider_family`) and the tool-name rules the doctor checks
(:func:`mcp_litellm._core.provider_rules.rules_family`).

A model has two traits, and they differ for one kind of model only: Claude on Bedrock takes Anthropic's schema
dialect (Bedrock hands the schema to Claude) but Bedrock's tool-name rules. An unknown model gets its schema
sent as it is (the OpenAI dialect: JSON Schema untouched) and has no known name rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Family", "NameRules", "SchemaDialect", "model_family"]

NameRules = Literal["openai", "anthropic", "gemini", "bedrock"]
SchemaDialect = Literal["openai", "anthropic", "gemini"]

_OPENAI_LIKE = {"openai", "azure", "azure_ai", "text-completion-openai"}
_VERTEX = {"vertex_ai", "vertex_ai_beta"}
_BEDROCK = {"bedrock", "bedrock_converse"}
_BARE = (("claude", "anthropic"), ("gemini", "gemini"), ("gpt-", "openai"), ("chatgpt", "openai"), ("o1", "openai"),
         ("o3", "openai"), ("o4", "openai"))
"""How a bare model name (no ``provider/`` prefix) starts, for each provider LiteLLM would pick for it."""


@dataclass(frozen=True)
class Family:
    """A model's provider family, as its two traits."""

    names: NameRules | None
    """Whose tool-name rules apply (``None``: none known)."""
    schema: SchemaDialect
    """Whose JSON-schema dialect the tools' parameters are sent in."""


def model_family(model: str | None, provider: str | None = None) -> Family:
    """The family of the LiteLLM model string ``model``. ``provider`` is the provider as
    ``litellm.get_llm_provider`` reports it, when known; otherwise the model's ``provider/`` prefix, and for a
    bare name its start (``claude...``, ``gemini...``, ``gpt-...``), tell."""
    lowered = (model or "").lower()
    prefix, _, rest = lowered.partition("/") if "/" in lowered else ("", "", lowered)
    provider = provider or prefix or None
    if provider is None:
        provider = next((name for start, name in _BARE if rest.startswith(start)), None)
    claude = "claude" in rest
    if provider == "anthropic" or (provider in _VERTEX and claude):
        return Family("anthropic", "anthropic")
    if provider == "gemini" or provider in _VERTEX:
        return Family("gemini", "gemini")
    if provider in _BEDROCK:
        return Family("bedrock", "anthropic" if claude else "openai")
    if provider in _OPENAI_LIKE:
        return Family("openai", "openai")
    return Family(None, "openai")
