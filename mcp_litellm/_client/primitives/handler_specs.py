"""What a client feature is set to: a handler with its options (:class:`HandlerSpec`), and the sampling and
elicitation settings (:class:`SamplingSettings`, :class:`ElicitationSettings`).

Plain values with no handler logic, kept in the client layer so that the client's own signatures
(``Client.sampling_settings``, ...) name them without importing :mod:`mcp_litellm.handlers`; the handler
modules and ``handlers._settings`` build and read them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_litellm._core.errors import ConfigError


@dataclass(frozen=True)
class HandlerSpec:
    """A registered handler: a plain function (sync or async) or a handler class, with option overrides."""

    handler: Any
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, handler: Any, options: Mapping[str, Any] | None = None) -> HandlerSpec:
        """Validate ``handler`` and wrap it with ``options``."""
        if isinstance(handler, HandlerSpec):
            return cls(handler.handler, {**handler.options, **(options or {})})
        if not callable(handler):
            raise ConfigError(f"a handler must be a function or a handler class, got {type(handler).__name__}")
        if options and not isinstance(handler, type):
            raise ConfigError("handler options can only be given with a handler class, not with a plain function")
        return cls(handler, dict(options or {}))


@dataclass(frozen=True)
class SamplingSettings:
    """How the client answers ``sampling/createMessage`` (a server asking for an LLM completion).

    Attributes:
        enabled: advertise sampling and answer requests (off by default).
        handler: a ``SamplingHandler`` class or a function ``fn(sample)``; without one the request
            goes to LiteLLM with the model chosen by the policy below.
        preferred_model: a model string, or ``fn(model_preferences) -> model | None``.
        default_model: the model when neither ``preferred_model`` nor the server's preferences decide.
        allowed_models: models a server's hints and priorities may choose among (hints naming other
            models are ignored). With a ``router`` it defaults to the router's model names.
        router: a ``litellm.Router``; completions go through ``router.acompletion``.
        completion_kwargs: extra keyword arguments for every completion (``api_base``, ``api_key``, ...).
        guard: ``fn(sample)``; ``False`` or a string rejects the request with that reason.
        approval: ``fn(sample)`` run before the completion (e.g. asks a person); same contract as ``guard``.
        rate_limit: at most this many sampling requests per minute from this server.
        max_cost: a budget in USD for this server's sampling: once the completions run for it cost this
            much (``client.sampling_usage.cost``, priced by ``litellm.completion_cost``), further requests
            are refused. Completions of models LiteLLM has no price for count nothing.
        max_tokens: cap for the server's ``maxTokens``.
        tools: advertise (and convert) tool use in sampling requests.
    """

    enabled: bool = False
    handler: HandlerSpec | None = None
    preferred_model: str | Callable[..., Any] | None = None
    default_model: str | None = None
    allowed_models: tuple[str, ...] | None = None
    router: Any = None
    completion_kwargs: Mapping[str, Any] = field(default_factory=dict)
    guard: Callable[..., Any] | None = None
    approval: Callable[..., Any] | None = None
    rate_limit: int | None = None
    max_cost: float | None = None
    max_tokens: int | None = None
    tools: bool = True

    def __repr__(self) -> str:  # completion_kwargs may hold api keys
        kwargs = {k: "***" if "key" in k.lower() or "token" in k.lower() else v
                  for k, v in self.completion_kwargs.items()}
        return (f"SamplingSettings(enabled={self.enabled}, handler={self.handler!r}, "
                f"preferred_model={self.preferred_model!r}, default_model={self.default_model!r}, "
                f"allowed_models={self.allowed_models!r}, router={'<Router>' if self.router else None}, "
                f"completion_kwargs={kwargs!r}, rate_limit={self.rate_limit!r}, max_cost={self.max_cost!r}, "
                f"max_tokens={self.max_tokens!r})")


@dataclass(frozen=True)
class ElicitationSettings:
    """How the client answers ``elicitation/create`` (a server asking the user for input).

    Attributes:
        enabled: advertise elicitation (off by default; registering a handler enables it).
        handler: an ``ElicitationHandler`` class or a function ``fn(elicitation)``.
        timeout: seconds a deferred elicitation waits for ``ElicitationRegistry.complete`` before
            it is cancelled.
    """

    enabled: bool = False
    handler: HandlerSpec | None = None
    timeout: float = 300.0


__all__ = ["ElicitationSettings", "HandlerSpec", "SamplingSettings"]
