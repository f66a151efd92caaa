"""``Chat(api="responses")``: the same chat over the Responses API, through LiteLLM's own bridge.

LiteLLM routes a completion request for ``<provider>/responses/<model>`` through ``litellm.responses``: it
turns the messages into Responses input items (tool calls, tool outputs, the reasoning items a turn
returned), the tools into Responses tools, and the output items and stream events back into a chat
completion. The chat therefore keeps one tool loop, streaming, approval and usage for both APIs, and only
names the model differently; the reasoning items the provider returns ride on the assistant messages
(``reasoning_items``) so LiteLLM can send them back, as the API requires for reasoning models.
"""

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from mcp_litellm import _llm
from mcp_litellm._core.errors import ConfigError

ChatAPI: TypeAlias = Literal["chat", "responses"]
"""Which LiteLLM API a chat's requests use: ``"chat"`` (``litellm.completion``) or ``"responses"``."""

_MARKER = "responses/"
RESPONSES_PROVIDERS = ("openai", "azure")
"""Providers whose Responses API LiteLLM serves: through its completion bridge (``provider/responses/model``),
and with hosted MCP servers (``_chat/hosted/``)."""


def check_api(value: Any) -> ChatAPI:
    """``value`` if it names an API the chat speaks, else a :class:`ConfigError` naming both."""
    if value in ("chat", "responses"):
        return value  # type: ignore[no-any-return]
    raise ConfigError(f"api must be 'chat' (litellm.completion) or 'responses' (litellm.responses), got {value!r}")


def plain_model(model: str) -> str:
    """``model`` without a ``responses/`` routing segment (``openai/responses/gpt-4o`` -> ``openai/gpt-4o``),
    the name LiteLLM's model map prices and counts tokens for."""
    provider, _, rest = model.partition("/")
    if rest.startswith(_MARKER):
        return f"{provider}/{rest[len(_MARKER):]}"
    return model[len(_MARKER):] if model.startswith(_MARKER) else model


def request_model(model: str, api: ChatAPI, *, routed: bool) -> str:
    """The model string a request names: for ``api="responses"``, routed through LiteLLM's bridge."""
    if api == "chat" or _MARKER in model:
        return model
    if routed:
        raise ConfigError("api='responses' with a Router: name the deployment's model as "
                          "'openai/responses/<model>' (or 'azure/responses/<deployment>') in the Router's "
                          "model_list instead, and keep api='chat'")
    name, provider = _llm.llm_provider(model)
    if provider not in RESPONSES_PROVIDERS:
        raise ConfigError(f"api='responses' serves OpenAI and Azure models through LiteLLM; {model!r} is "
                          f"{provider or 'of no provider LiteLLM knows'}: use api='chat' for it")
    return f"{provider}/{_MARKER}{name}"


__all__ = ["RESPONSES_PROVIDERS", "ChatAPI", "check_api", "plain_model", "request_model"]
