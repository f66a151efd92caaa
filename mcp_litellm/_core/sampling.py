"""Sampling: MCP ``sampling/createMessage`` requests to LiteLLM calls and back (pure, no I/O).

- :func:`to_litellm_messages` / :func:`completion_kwargs`: the request as LiteLLM messages and
  keyword arguments (text, image and audio content; tool_use / tool_result blocks; tools and
  tool choice; temperature, max tokens, stop sequences).
- :func:`to_result`: a LiteLLM response (or a handler's shorthand) as the MCP result, with the
  model actually used and the stop reason.
- :func:`select_model`: the built-in model choice from the server's ``ModelPreferences``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mcp_types import (
    AudioContent,
    CreateMessageRequestParams,
    CreateMessageResult,
    CreateMessageResultWithTools,
    ImageContent,
    ModelPreferences,
    TextContent,
    ToolResultContent,
    ToolUseContent,
)

from mcp_litellm._core.content import block_text, media_parts
from mcp_litellm._core.schema import schema_for_model

__all__ = [
    "SamplingConversionError",
    "completion_kwargs",
    "map_stop_reason",
    "rank_models",
    "request_text",
    "select_model",
    "to_litellm_messages",
    "to_litellm_tools",
    "to_result",
    "wants_tools",
]

_STOP_REASONS = {
    "stop": "endTurn",
    "end_turn": "endTurn",
    "eos": "endTurn",
    "length": "maxTokens",
    "max_tokens": "maxTokens",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "tool_use": "toolUse",
    "stop_sequence": "stopSequence",
}
_TOOL_CHOICE = {"auto": "auto", "required": "required", "none": "none"}
_Result = CreateMessageResult | CreateMessageResultWithTools


class SamplingConversionError(ValueError):
    """A sampling request or a model's answer could not be converted (reported to the server)."""


def wants_tools(params: CreateMessageRequestParams) -> bool:
    """True when the server sent tools or a tool choice (the answer may then hold tool_use blocks)."""
    return bool(params.tools) or params.tool_choice is not None


def request_text(params: CreateMessageRequestParams) -> str:
    """The text of every message of the request, joined by newlines (what a guard usually checks)."""
    texts: list[str] = []
    for message in params.messages:
        for block in message.content_as_list:
            if isinstance(block, TextContent):
                texts.append(block.text)
            elif isinstance(block, ToolResultContent):
                texts.extend(t for t in (block_text(b) for b in block.content) if t)
    return "\n".join(texts)


# -- request ---------------------------------------------------------------------------------------


def _text_or_parts(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    if all(p["type"] == "text" for p in parts):
        return "\n".join(p["text"] for p in parts)
    return parts


def _tool_result_message(block: ToolResultContent) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    text = "\n".join(t for t in (block_text(b) for b in block.content) if t is not None)
    if not text and block.structured_content is not None:
        text = json.dumps(block.structured_content, ensure_ascii=False)
    if block.is_error:
        text = f"Error: {text}" if text else "Error: the tool call failed"
    message = {"role": "tool", "tool_call_id": block.tool_use_id, "content": text or "(no output)"}
    return message, media_parts(block.content)


def _media_part(block: ImageContent | AudioContent) -> dict[str, Any]:
    return media_parts([block])[0]


def to_litellm_messages(params: CreateMessageRequestParams) -> list[dict[str, Any]]:
    """The request's system prompt and messages in LiteLLM (OpenAI) format.

    A user message's ``tool_result`` blocks become ``role: "tool"`` messages (placed first, as
    providers require); images or audio inside a tool result follow in a user message. An
    assistant message's ``tool_use`` blocks become ``tool_calls``.
    """
    messages: list[dict[str, Any]] = []
    if params.system_prompt:
        messages.append({"role": "system", "content": params.system_prompt})
    for message in params.messages:
        blocks = message.content_as_list
        if message.role == "assistant":
            messages.append(_assistant_message(blocks))
            continue
        parts: list[dict[str, Any]] = []
        tool_media: list[dict[str, Any]] = []
        for block in blocks:
            if isinstance(block, ToolResultContent):
                tool_message, media = _tool_result_message(block)
                messages.append(tool_message)
                tool_media.extend(media)
            elif isinstance(block, TextContent):
                parts.append({"type": "text", "text": block.text})
            elif isinstance(block, ImageContent | AudioContent):
                parts.append(_media_part(block))
            elif isinstance(block, ToolUseContent):
                raise SamplingConversionError("a user message cannot contain a tool_use block")
        if tool_media:
            parts = [{"type": "text", "text": "Media returned by the tool calls above:"}, *tool_media, *parts]
        if parts:
            messages.append({"role": "user", "content": _text_or_parts(parts)})
    return messages


def _assistant_message(blocks: Iterable[Any]) -> dict[str, Any]:
    texts: list[str] = []
    tool_calls: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ToolUseContent):
            tool_calls.append({"id": block.id, "type": "function",
                               "function": {"name": block.name, "arguments": json.dumps(block.input)}})
        elif isinstance(block, ImageContent | AudioContent):
            texts.append(f"[{block.type} ({block.mime_type}) omitted]")
        elif isinstance(block, ToolResultContent):
            raise SamplingConversionError("an assistant message cannot contain a tool_result block")
    message: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) if texts else None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def to_litellm_tools(params: CreateMessageRequestParams, model: str | None = None) -> list[dict[str, Any]]:
    """The request's tools as LiteLLM function definitions (schemas adapted to ``model``'s provider)."""
    return [
        {"type": "function", "function": {"name": tool.name, "description": tool.description or tool.title or tool.name,
                                          "parameters": schema_for_model(dict(tool.input_schema or {}), model)}}
        for tool in params.tools or []
    ]


def completion_kwargs(params: CreateMessageRequestParams, *, model: str, max_tokens: int | None = None,
                      server: str | None = None) -> dict[str, Any]:
    """Keyword arguments for ``litellm.acompletion`` answering ``params`` with ``model``.

    ``max_tokens`` caps the server's ``maxTokens``. The server's ``metadata`` is passed as LiteLLM
    ``metadata`` (seen by LiteLLM callbacks and logging, not sent to the provider), next to the
    server's name; ``includeContext`` is not supported and ignored.
    """
    requested = params.max_tokens
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": to_litellm_messages(params),
        "max_tokens": min(requested, max_tokens) if max_tokens else requested,
    }
    if params.temperature is not None:
        kwargs["temperature"] = params.temperature
    if params.stop_sequences:
        kwargs["stop"] = list(params.stop_sequences)
    if params.tools:
        kwargs["tools"] = to_litellm_tools(params, model)
    mode = params.tool_choice.mode if params.tool_choice is not None else None
    if mode is not None and (params.tools or mode == "none"):
        kwargs["tool_choice"] = _TOOL_CHOICE[mode]
    metadata: dict[str, Any] = {}
    if server:
        metadata["mcp_server"] = server
    if params.metadata:
        metadata["mcp_sampling_metadata"] = dict(params.metadata)
    if metadata:
        kwargs["metadata"] = metadata
    return kwargs


# -- response --------------------------------------------------------------------------------------


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def map_stop_reason(finish_reason: str | None) -> str | None:
    """LiteLLM ``finish_reason`` to MCP ``stopReason`` (unknown reasons pass through unchanged)."""
    if finish_reason is None:
        return None
    return _STOP_REASONS.get(finish_reason, finish_reason)


def _tool_use(call: Any) -> ToolUseContent:
    function = _get(call, "function")
    name = _get(function, "name")
    raw = _get(function, "arguments") or "{}"
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as exc:
        raise SamplingConversionError(
            f"the model called tool {name!r} with arguments that are not JSON: {exc}") from None
    if not isinstance(arguments, dict):
        raise SamplingConversionError(f"the model called tool {name!r} with arguments that are not a JSON object")
    call_id = _get(call, "id") or f"call_{name}"
    return ToolUseContent(type="tool_use", id=str(call_id), name=str(name), input=arguments)


def _from_completion(response: Any, with_tools: bool, fallback_model: str) -> _Result:
    choices = _get(response, "choices") or []
    if not choices:
        raise SamplingConversionError("the model returned no choices")
    choice = choices[0]
    message = _get(choice, "message") or {}
    text = _get(message, "content")
    if isinstance(text, list):  # content parts
        text = "\n".join(str(_get(p, "text") or "") for p in text if _get(p, "type") == "text")
    blocks: list[Any] = [TextContent(type="text", text=text)] if text else []
    calls = _get(message, "tool_calls") or []
    if with_tools:
        blocks.extend(_tool_use(call) for call in calls)
    stop_reason = map_stop_reason(_get(choice, "finish_reason"))
    if with_tools and calls:
        stop_reason = "toolUse"
    model = _get(response, "model") or fallback_model
    return _build(blocks, with_tools, str(model), stop_reason)


def _build(blocks: list[Any], with_tools: bool, model: str, stop_reason: str | None) -> _Result:
    if with_tools:
        content: Any = blocks if len(blocks) != 1 else blocks[0]
        if not blocks:
            content = TextContent(type="text", text="")
        return CreateMessageResultWithTools(role="assistant", content=content, model=model, stop_reason=stop_reason)
    media = [b for b in blocks if isinstance(b, ImageContent | AudioContent)]
    if media and not any(isinstance(b, TextContent) for b in blocks):
        return CreateMessageResult(role="assistant", content=media[0], model=model, stop_reason=stop_reason)
    text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
    return CreateMessageResult(role="assistant", content=TextContent(type="text", text=text), model=model,
                               stop_reason=stop_reason)


def to_result(response: Any, *, with_tools: bool, model: str) -> CreateMessageResult | CreateMessageResultWithTools:
    """The MCP result for ``response``.

    ``response`` may be a LiteLLM ``ModelResponse`` (or its dict form), a string (the answer's text),
    a content block, or an SDK ``CreateMessageResult``/``CreateMessageResultWithTools``. ``model`` is
    reported when the response does not name the model that answered. ``with_tools`` selects the
    result shape the server expects (array content with tool_use blocks).
    """
    if isinstance(response, CreateMessageResultWithTools):
        if with_tools:
            return response
        return _build(list(response.content_as_list), False, response.model, response.stop_reason)
    if isinstance(response, CreateMessageResult):
        if not with_tools:
            return response
        return _build([response.content], True, response.model, response.stop_reason)
    if isinstance(response, str):
        return _build([TextContent(type="text", text=response)], with_tools, model, "endTurn")
    if isinstance(response, TextContent | ImageContent | AudioContent | ToolUseContent):
        reason = "toolUse" if isinstance(response, ToolUseContent) else "endTurn"
        return _build([response], with_tools, model, reason)
    if _get(response, "choices") is not None:
        return _from_completion(response, with_tools, model)
    raise SamplingConversionError(f"cannot turn a {type(response).__name__} into a sampling result")


# -- model selection --------------------------------------------------------------------------------


def _matches(hint: str, model: str) -> bool:
    hint = hint.lower().strip()
    lowered = model.lower()
    return bool(hint) and (hint in lowered or hint == lowered.rsplit("/", 1)[-1])


def _normalise(values: dict[str, float]) -> dict[str, float]:
    if not values:
        return {}
    low, high = min(values.values()), max(values.values())
    if math.isclose(low, high):
        return {k: 0.5 for k in values}
    return {k: (v - low) / (high - low) for k, v in values.items()}


def rank_models(models: Sequence[str], preferences: ModelPreferences,
                metadata: Callable[[str], Mapping[str, Any] | None]) -> list[str]:
    """``models`` ordered best first for the server's priorities (see :func:`score_models`)."""
    scores = score_models(models, preferences, metadata)
    order = {m: i for i, m in enumerate(models)}
    return sorted(models, key=lambda m: (-scores[m], order[m]))


def score_models(models: Sequence[str], preferences: ModelPreferences,
                 metadata: Callable[[str], Mapping[str, Any] | None]) -> dict[str, float]:
    """Each model's score for the server's cost/speed/intelligence priorities (higher is better).

    Uses LiteLLM's model metadata: the price per token stands for capability (higher) and for
    cost and latency (lower); a larger context window adds to capability; reasoning models add to
    capability and lose on speed. Models without metadata score in the middle. Ties keep the
    given order.
    """
    info = {m: metadata(m) or {} for m in models}
    prices = {m: float(i.get("input_cost_per_token") or 0) + float(i.get("output_cost_per_token") or 0)
              for m, i in info.items()}
    price = _normalise({m: math.log10(p) for m, p in prices.items() if p > 0})
    context = _normalise({m: math.log10(float(i["max_input_tokens"])) for m, i in info.items()
                          if isinstance(i.get("max_input_tokens"), int | float) and i["max_input_tokens"] > 0})
    cost_p = preferences.cost_priority or 0.0
    speed_p = preferences.speed_priority or 0.0
    smart_p = preferences.intelligence_priority or 0.0

    def score(model: str) -> float:
        p = price.get(model, 0.5)
        reasoning = bool(info[model].get("supports_reasoning"))
        intelligence = min(1.0, 0.7 * p + 0.3 * context.get(model, 0.5) + (0.2 if reasoning else 0.0))
        speed = max(0.0, (1 - p) - (0.3 if reasoning else 0.0))
        return cost_p * (1 - p) + speed_p * speed + smart_p * intelligence

    return {model: score(model) for model in models}


def select_model(preferences: ModelPreferences | None, *, allowed_models: Sequence[str] | None,
                 default_model: str | None, metadata: Callable[[str], Mapping[str, Any] | None]) -> str | None:
    """The built-in model policy.

    1. the first of the server's hints that names an allowed model (hints are substrings, in order);
    2. else, when the server gave priorities, the allowed model ranking best (:func:`rank_models`);
    3. else ``default_model``, else the first allowed model; ``None`` when nothing is configured.

    Servers choose only among ``allowed_models``: hints naming other models are ignored.
    """
    allowed = list(allowed_models or [])
    if preferences is not None and allowed:
        for hint in preferences.hints or []:
            if hint.name:
                for model in allowed:
                    if _matches(hint.name, model):
                        return model
        priorities = (preferences.cost_priority, preferences.speed_priority, preferences.intelligence_priority)
        if len(allowed) > 1 and any(p for p in priorities):
            scores = score_models(allowed, preferences, metadata)
            best = max(scores.values())
            if not (default_model and all(math.isclose(s, best) for s in scores.values())):
                return max(allowed, key=scores.__getitem__)  # the first of equals, as rank_models orders them
            # nothing tells the models apart (no metadata for any of them): the configured default wins
    if default_model:
        return default_model
    return allowed[0] if allowed else None
