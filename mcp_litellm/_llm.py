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
