"""Which keyword arguments a :class:`Chat` passes to LiteLLM, and the error for one it does not know.

``Chat(model, **kwargs)`` sends its keyword arguments with every request, so a misspelt option of the chat
itself (``tool_timout=5``) would reach the provider and the option would never be set. A keyword must be
one of the chat's own options or a parameter LiteLLM's ``completion`` knows (:func:`_llm.completion_params`,
LiteLLM's own lists); anything else, a parameter only one provider knows, goes in ``completion_kwargs=``.

LiteLLM's list is read once LiteLLM is imported (seconds, done off the event loop before the first
request): a keyword that is clearly a misspelt chat option is refused at once; the others, at the latest
when the first request is about to go out (the question is then taken back).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from mcp_litellm import _llm
from mcp_litellm._chat.responses_api import plain_model
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.option_checks import closest

_NEAR_OWN = 0.9
"""How alike a keyword and a chat option must be to call the keyword a misspelt option before LiteLLM's list
is known (no LiteLLM parameter is that close to a chat option: ``mock_timeout`` is 0.75 from ``tool_timeout``)."""


def check_keywords(names: Iterable[str], own: Collection[str]) -> set[str]:
    """Raise :class:`ConfigError` for a keyword in ``names`` that is neither LiteLLM's nor one of ``own``
    (the chat's options); return the ones that cannot be told yet (LiteLLM is not imported)."""
    names = list(names)
    known = _llm.completion_params() if names else None
    pending = set()
    for name in names:
        if known is not None and name in known:
            continue
        if name in own:  # with_params(tool_timeout=3): the chat's own option, not a LiteLLM parameter
            raise ConfigError(f"{name}= is an option of the Chat itself, not a parameter of litellm.completion: "
                              f"give it to Chat(..., {name}=...)")
        near_own = closest(name, own, cutoff=_NEAR_OWN)
        if known is None and near_own is None:
            pending.add(name)
            continue
        raise ConfigError(_unknown(name, closest(name, [*own, *(known or ())])))
    return pending


def _unknown(name: str, near: str | None) -> str:
    guess = f"did you mean {near}=? " if near else ""
    return (f"Chat got an unknown keyword argument {name}=: {guess}A Chat takes its own options and the parameters "
            f"of litellm.completion (temperature=, max_tokens=, api_base=, ...); pass a parameter only your "
            f"provider knows as completion_kwargs={{{name!r}: ...}} (or inside extra_body={{...}}).")


def provider_model(model: str, router: object, params: Mapping[str, object]) -> str:
    """The model whose provider rules apply to tool schemas and tool-result images: a Router alias's underlying
    model, else ``model`` (with the ``custom_llm_provider`` given in ``params``)."""
    if router is not None:
        for entry in getattr(router, "model_list", None) or []:
            if isinstance(entry, dict) and entry.get("model_name") == model:
                underlying = (entry.get("litellm_params") or {}).get("model")
                if underlying:
                    return str(underlying)
    provider = params.get("custom_llm_provider")
    plain = plain_model(model)
    return f"{provider}/{plain}" if provider and "/" not in plain else plain
