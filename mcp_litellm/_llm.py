"""The one module that imports LiteLLM (lazily: ``import litellm`` takes seconds).

Everything else in mcp_litellm reaches LiteLLM through the small functions here, so importing the
package stays cheap and the provider layer has a single seam.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def litellm_module() -> Any:
    """The ``litellm`` module, imported on first use."""
    import litellm

    return litellm


async def acompletion(*, router: Any = None, **kwargs: Any) -> Any:
    """``litellm.acompletion(**kwargs)``, or ``router.acompletion(**kwargs)`` when a Router is given."""
    if router is not None:
        return await router.acompletion(**kwargs)
    return await litellm_module().acompletion(**kwargs)


def model_metadata(model: str) -> dict[str, Any] | None:
    """LiteLLM's cost/context metadata for ``model`` (with or without a provider prefix), or ``None``.

    Reads ``litellm.model_cost`` directly: ``get_model_info`` prints to stdout for unmapped models.
    """
    table: dict[str, Any] = litellm_module().model_cost
    for key in (model, model.split("/", 1)[1] if "/" in model else None, model.lower()):
        if key and isinstance(table.get(key), dict):
            return dict(table[key])
    return None


def router_metadata(router: Any) -> Callable[[str], dict[str, Any] | None]:
    """``model_metadata`` for a Router's aliases: an alias gets the metadata of the model(s) behind it in
    the Router's model list (averaged over its deployments; flags like ``supports_reasoning`` if any has
    them); a name that is no alias is looked up as a model."""
    behind: dict[str, list[str]] = {}
    for entry in getattr(router, "model_list", None) or []:
        if isinstance(entry, dict):
            model = (entry.get("litellm_params") or {}).get("model")
            if entry.get("model_name") and isinstance(model, str):
                behind.setdefault(str(entry["model_name"]), []).append(model)

    def lookup(name: str) -> dict[str, Any] | None:
        found = [info for info in (model_metadata(model) for model in behind.get(name, [])) if info]
        if not found:
            return model_metadata(name)
        merged: dict[str, Any] = {}
        for key in {key for info in found for key in info}:
            values = [info[key] for info in found if key in info]
            if all(isinstance(v, bool) for v in values):
                merged[key] = any(values)
            elif all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                merged[key] = sum(values) / len(values)
            else:
                merged[key] = values[0]
        return merged

    return lookup


def router_model_names(router: Any) -> list[str]:
    """The model group names (aliases) a ``litellm.Router`` serves."""
    ordered: list[str] = []
    for entry in getattr(router, "model_list", None) or []:  # in the order the user listed them
        name = entry.get("model_name") if isinstance(entry, dict) else None
        if name and str(name) not in ordered:
            ordered.append(str(name))
    return ordered or sorted(str(n) for n in getattr(router, "model_names", None) or [])


def count_tokens(model: str, *, messages: list[dict[str, Any]] | None = None,
                 tools: list[dict[str, Any]] | None = None, text: str | None = None) -> int:
    """Prompt tokens of ``messages`` and ``tools`` (or of ``text``) for ``model``: ``litellm.token_counter``.

    LiteLLM falls back to a generic tokenizer for models it does not know, so this never raises for a
    model name; a message LiteLLM cannot count makes the count ``len(text) // 4`` instead.
    """
    litellm = litellm_module()
    try:
        if text is not None:
            return int(litellm.token_counter(model=model, text=text))
        return int(litellm.token_counter(model=model, messages=messages or [], tools=tools or None))
    except Exception:  # an exotic content part: a rough estimate beats failing the chat
        import json

        return len(text if text is not None else json.dumps([messages, tools], default=str)) // 4


def input_window(model: str) -> int | None:
    """How many input tokens ``model`` takes (``max_input_tokens`` in LiteLLM's model info), or ``None``."""
    info = model_metadata(model) or {}
    value = info.get("max_input_tokens") or info.get("max_tokens")
    return int(value) if isinstance(value, int | float) and value > 0 else None


def completion_cost(model: str, response: Any = None, *, prompt_tokens: int = 0,
                    completion_tokens: int = 0) -> float | None:
    """The USD cost of one model request (``litellm.completion_cost``), or ``None`` when LiteLLM has no
    price for ``model``. A streamed request has no response object: its token counts are priced."""
    if model_metadata(model) is None:
        return None
    hidden = getattr(response, "_hidden_params", None)
    known = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if isinstance(known, int | float) and not isinstance(known, bool):
        return float(known)  # LiteLLM priced this response already (pricing again takes about 0.5 ms)
    litellm = litellm_module()
    try:
        if response is not None:
            return float(litellm.completion_cost(completion_response=response, model=model))
        prompt_cost, completion_part = litellm.cost_per_token(model=model, prompt_tokens=prompt_tokens,
                                                              completion_tokens=completion_tokens)
        return float(prompt_cost) + float(completion_part)
    except Exception:  # LiteLLM raises for prices it cannot work out
        return None


def streams_usage(model: str) -> bool:
    """Whether ``model``'s provider takes ``stream_options={"include_usage": True}`` (LiteLLM drops the
    usage of a stream without it)."""
    litellm = litellm_module()
    try:
        return "stream_options" in (litellm.get_supported_openai_params(model=model) or [])
    except Exception:  # an unknown provider
        return False
