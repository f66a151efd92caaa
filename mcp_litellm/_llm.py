"""The one module that imports LiteLLM (lazily: ``import litellm`` takes seconds).

Everything else in mcp_litellm reaches LiteLLM through the small functions here, so importing the
package stays cheap and the provider layer has a single seam.
"""

from __future__ import annotations

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


def router_model_names(router: Any) -> list[str]:
    """The model group names (aliases) a ``litellm.Router`` serves."""
    ordered: list[str] = []
    for entry in getattr(router, "model_list", None) or []:  # in the order the user listed them
        name = entry.get("model_name") if isinstance(entry, dict) else None
        if name and str(name) not in ordered:
            ordered.append(str(name))
    return ordered or sorted(str(n) for n in getattr(router, "model_names", None) or [])
