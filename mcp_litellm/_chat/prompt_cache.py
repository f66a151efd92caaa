"""Prompt caching: where a chat request marks the end of its stable prefix for providers that need it.

Anthropic (and Claude on Bedrock, Vertex AI and Azure AI) reads a cached prefix only up to a block marked
``cache_control``, at most four marks a request. The chat asks LiteLLM to place them, through its own
``cache_control_injection_points``: after the last tool definition, after the system prompt, and on the
latest message, so each request of a tool loop reads the previous one's prefix from the cache and writes
one turn more. Providers that cache on their own get nothing added; for all of them the prefix stays
byte-identical, since tool definitions keep their order and nothing per-request precedes the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypeAlias

from mcp_litellm import _llm
from mcp_litellm._core.errors import ConfigError

PromptCache: TypeAlias = Literal["auto"] | bool
"""``"auto"`` (or ``True``): mark breakpoints where the provider needs them; ``False``: never mark."""

_POINTS_KEY = "cache_control_injection_points"


def check_prompt_cache(value: Any) -> PromptCache:
    """``value`` if it is a valid ``prompt_cache`` setting, else a :class:`ConfigError` naming the choices."""
    if value == "auto" or isinstance(value, bool):
        return value  # type: ignore[no-any-return]
    raise ConfigError(f"prompt_cache must be 'auto', True or False, got {value!r}")


def breakpoints(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The injection points for a request: the tool definitions, the system prompt, the latest message."""
    points: list[dict[str, Any]] = []
    if tools:
        points.append({"location": "tool_config"})
    if any(message.get("role") == "system" for message in messages):
        points.append({"location": "message", "role": "system"})
    if messages:
        points.append({"location": "message", "index": -1})
    return points


def mark_breakpoints(kwargs: dict[str, Any], model: str, setting: PromptCache) -> None:
    """Add the cache breakpoints to a request's ``kwargs`` when ``setting`` allows it and ``model`` needs
    them. Points the user gave (``cache_control_injection_points`` in the chat's params) are left as they
    are; LiteLLM keeps the total within the provider's limit, counting marks already in the messages."""
    if setting is False or _POINTS_KEY in kwargs:
        return
    if not _llm.needs_cache_breakpoints(model, kwargs.get("custom_llm_provider")):
        return
    points = breakpoints(kwargs.get("messages") or [], kwargs.get("tools"))
    if points:
        kwargs[_POINTS_KEY] = points


__all__ = ["PromptCache", "breakpoints", "check_prompt_cache", "mark_breakpoints"]
