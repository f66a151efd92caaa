"""Global defaults for client features: ``ml.configure(...)`` and ``ml.config``.

Each client resolves its feature settings once, when it is created: the global defaults first, then
its own keyword arguments on top (per client wins, key by key). Changing ``ml.config`` afterwards
affects clients created afterwards.

Sampling and elicitation are off unless enabled (or a handler is registered); roots are offered
only when configured.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from mcp_litellm._client.primitives.handler_specs import ElicitationSettings, HandlerSpec, SamplingSettings
from mcp_litellm._core.deprecation import deprecated_form
from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.option_checks import positive_seconds
from mcp_litellm._core.types import NOT_GIVEN, NotGiven, given
from mcp_litellm.handlers._base import Handler

if TYPE_CHECKING:
    from mcp_litellm._client.primitives.handler_types import (
        ApprovalHandlerArg,
        ElicitationArg,
        ElicitationHandlerArg,
        RootsArg,
        SamplingArg,
        SamplingHandlerArg,
    )

__all__ = [
    "Config",
    "ElicitationSettings",
    "HandlerSpec",
    "SamplingSettings",
    "config",
    "configure",
]


_SAMPLING_KEYS = {f.name for f in dataclasses.fields(SamplingSettings)}
_ELICITATION_KEYS = {f.name for f in dataclasses.fields(ElicitationSettings)}
OPTION_NAMES = ("sampling", "elicitation", "roots", "human_in_the_loop", "on_human_in_the_loop")
"""Keyword arguments of ``ml.client(...)`` / ``ml.configure(...)`` that this module handles."""


_HANDLER_CLASS_NAMES = {"sampling": "SamplingHandler", "elicitation": "ElicitationHandler",
                        "human_in_the_loop": "HumanInTheLoopHandler"}


def checked(spec: HandlerSpec | None, kind: str) -> HandlerSpec | None:
    """``spec`` after checking that a handler class is of the right kind (``sampling``, ...)."""
    if spec is not None and isinstance(spec.handler, type):
        handler = spec.handler
        if not issubclass(handler, Handler) or handler.kind != kind:
            base = _HANDLER_CLASS_NAMES[kind]
            raise ConfigError(f"{handler.__name__} is not a {base}; {kind} needs one (or a function)")
    return spec


def _positive(value: object, what: str, *, integer: bool = False) -> None:
    kinds = (int,) if integer else (int, float)
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        raise ConfigError(f"{what} must be a positive {'integer' if integer else 'number'}, got {value!r}")


def _callable_or_none(value: object, what: str) -> None:
    if value is not None and not callable(value):
        raise ConfigError(f"{what} must be callable, got {type(value).__name__}")


def _merge_head(base: Any, value: Any, kind: str, keys: frozenset[str] | set[str]) -> Any:
    """The part of ``merge_sampling``/``merge_elicitation`` both share: bool, settings object, handler, and
    unknown keys. Returns new settings, or the checked ``changes`` dict for the caller to finish."""
    if value is None:
        return base
    if isinstance(value, bool):
        return dataclasses.replace(base, enabled=value)
    if isinstance(value, type(base)):
        return value
    if not isinstance(value, Mapping):
        if callable(value) or isinstance(value, HandlerSpec):
            return dataclasses.replace(base, enabled=True, handler=checked(HandlerSpec.of(value), kind))
        raise ConfigError(f"{kind} must be True/False, a handler or a mapping of settings, got {value!r}")
    unknown = sorted(set(value) - set(keys) - {"handler_options"})
    if unknown:
        raise ConfigError(f"unknown {kind} setting(s): {', '.join(unknown)}; valid: {', '.join(sorted(keys))}")
    changes = dict(value)
    if "handler" in changes or "handler_options" in changes:
        handler = changes.pop("handler", base.handler)
        options = changes.pop("handler_options", None)
        changes["handler"] = checked(HandlerSpec.of(handler, options), kind) if handler is not None else None
        changes.setdefault("enabled", changes["handler"] is not None or base.enabled)
    return changes


def merge_sampling(base: SamplingSettings, value: object) -> SamplingSettings:
    """``base`` updated by a ``sampling=`` value: bool, handler, or a mapping of settings."""
    changes = _merge_head(base, value, "sampling", _SAMPLING_KEYS)
    if not isinstance(changes, dict):
        return changes  # type: ignore[no-any-return]
    if "allowed_models" in changes and changes["allowed_models"] is not None:
        models = changes["allowed_models"]
        if isinstance(models, str) or not isinstance(models, Sequence) or not all(isinstance(m, str) for m in models):
            raise ConfigError(f"sampling allowed_models must be a list of model names, got {models!r}")
        changes["allowed_models"] = tuple(models)
    pm = changes.get("preferred_model")
    if pm is not None and not isinstance(pm, str) and not callable(pm):
        raise ConfigError(f"sampling preferred_model must be a model name or a callable, got {pm!r}")
    for key in ("guard", "approval"):
        _callable_or_none(changes.get(key), f"sampling {key}")
    _positive(changes.get("rate_limit"), "sampling rate_limit (requests per minute)", integer=True)
    _positive(changes.get("max_cost"), "sampling max_cost (USD)")
    _positive(changes.get("max_tokens"), "sampling max_tokens", integer=True)
    if "completion_kwargs" in changes:
        if not isinstance(changes["completion_kwargs"] or {}, Mapping):
            raise ConfigError("sampling completion_kwargs must be a mapping")
        changes["completion_kwargs"] = dict(changes["completion_kwargs"] or {})
    router = changes.get("router")
    if router is not None and not callable(getattr(router, "acompletion", None)):
        raise ConfigError("sampling router must be a litellm.Router (an object with acompletion)")
    return dataclasses.replace(base, **changes)


def merge_elicitation(base: ElicitationSettings, value: object) -> ElicitationSettings:
    """``base`` updated by an ``elicitation=`` value: bool, handler, or a mapping of settings."""
    changes = _merge_head(base, value, "elicitation", _ELICITATION_KEYS)
    if not isinstance(changes, dict):
        return changes  # type: ignore[no-any-return]
    positive_seconds(changes.get("timeout"), "elicitation timeout", none="for the default", allow_inf=True)
    return dataclasses.replace(base, **changes)


def check_roots(value: object) -> list[str | os.PathLike[str]] | None:
    """Shape check for ``roots=`` (paths are resolved and checked when a client takes them)."""
    if value is None:
        return None
    if isinstance(value, str | os.PathLike) or not isinstance(value, Sequence):
        raise ConfigError(f"roots must be a list of paths, got {value!r}")
    return list(value)


@dataclass
class Config:
    """Global defaults for client features; see :func:`configure`.

    Attributes:
        sampling: :class:`SamplingSettings` every new client starts from.
        elicitation: :class:`ElicitationSettings` every new client starts from.
        roots: paths offered as roots by every new client (``None``: not offered).
        human_in_the_loop: the approval handler for every new client's tool calls (``None``: none).
    """

    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    elicitation: ElicitationSettings = field(default_factory=ElicitationSettings)
    roots: list[str | os.PathLike[str]] | None = None
    human_in_the_loop: HandlerSpec | None = None

    def update(self, **settings: Any) -> Config:
        """Apply ``configure``-style keyword arguments to this config; returns it."""
        unknown = sorted(set(settings) - set(OPTION_NAMES))
        if unknown:
            raise ConfigError(f"unknown setting(s): {', '.join(unknown)}; valid: {', '.join(OPTION_NAMES)}")
        sampling = merge_sampling(self.sampling, settings.get("sampling"))
        elicitation = merge_elicitation(self.elicitation, settings.get("elicitation"))
        roots = check_roots(settings["roots"]) if "roots" in settings else self.roots
        hitl = approval_option(settings, self.human_in_the_loop, "ml.configure")
        self.sampling, self.elicitation, self.roots, self.human_in_the_loop = sampling, elicitation, roots, hitl
        return self

    def on_sampling(self, handler: SamplingHandlerArg, **options: Any) -> Config:
        """Default sampling handler (class or function) for new clients; enables sampling."""
        self.sampling = dataclasses.replace(self.sampling, enabled=True,
                                            handler=checked(HandlerSpec.of(handler, options), "sampling"))
        return self

    def on_elicitation(self, handler: ElicitationHandlerArg, **options: Any) -> Config:
        """Default elicitation handler (class or function) for new clients; enables elicitation."""
        self.elicitation = dataclasses.replace(self.elicitation, enabled=True,
                                               handler=checked(HandlerSpec.of(handler, options), "elicitation"))
        return self

    def on_human_in_the_loop(self, handler: ApprovalHandlerArg, **options: Any) -> Config:
        """Default tool-call approval handler (class or function ``fn(tool_name, parameters)``)."""
        self.human_in_the_loop = checked(HandlerSpec.of(handler, options), "human_in_the_loop")
        return self

    def off_sampling(self) -> Config:
        """Turn the default sampling off for new clients (undoes :meth:`on_sampling`)."""
        self.sampling = dataclasses.replace(self.sampling, enabled=False, handler=None)
        return self

    def off_elicitation(self) -> Config:
        """Turn the default elicitation off for new clients (undoes :meth:`on_elicitation`)."""
        self.elicitation = dataclasses.replace(self.elicitation, enabled=False, handler=None)
        return self

    def off_human_in_the_loop(self) -> Config:
        """Remove the default tool-call approval handler for new clients (undoes :meth:`on_human_in_the_loop`)."""
        self.human_in_the_loop = None
        return self

    def reset(self) -> Config:
        """Back to the built-in defaults (everything off)."""
        self.sampling, self.elicitation = SamplingSettings(), ElicitationSettings()
        self.roots, self.human_in_the_loop = None, None
        return self


def approval_option(given: Mapping[str, object], default: HandlerSpec | None, where: str) -> HandlerSpec | None:
    """The approval handler that ``human_in_the_loop=`` (or the deprecated ``on_human_in_the_loop=``) in ``given``
    chooses, ``default`` when neither is there; ``None`` turns approval off."""
    if "on_human_in_the_loop" in given:
        if "human_in_the_loop" in given:
            raise ConfigError("give human_in_the_loop or on_human_in_the_loop, not both")
        deprecated_form(f"{where}(on_human_in_the_loop=...) is deprecated; write {where}(human_in_the_loop=...) "
                        "(the method client.on_human_in_the_loop(handler) stays)", stacklevel=None)
    key = "human_in_the_loop" if "human_in_the_loop" in given else "on_human_in_the_loop"
    if key not in given:
        return default
    value = given[key]
    return checked(HandlerSpec.of(value), "human_in_the_loop") if value is not None else None


config = Config()
"""The global defaults (``ml.config``)."""


def configure(
    *,
    sampling: SamplingArg | NotGiven = NOT_GIVEN,
    elicitation: ElicitationArg | NotGiven = NOT_GIVEN,
    roots: RootsArg | NotGiven = NOT_GIVEN,
    human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
    on_human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
    **unknown: NoReturn,
) -> Config:
    """Set global defaults for client features; returns :data:`config`.

    Keywords (the same as ``ml.client(...)`` accepts, where they win over these):

    - ``sampling``: ``True``/``False``, a handler, or a mapping of :class:`SamplingSettings` fields,
      e.g. ``{"enabled": True, "preferred_model": "gpt-4.1", "rate_limit": 10, "max_cost": 0.50}``.
    - ``elicitation``: ``True``/``False``, a handler, or ``{"handler": ..., "timeout": ...}``.
    - ``roots``: a list of directories (``None``: no roots capability).
    - ``human_in_the_loop``: an approval handler for every tool call (``on_human_in_the_loop=`` is a deprecated
      spelling of it).

    Mappings update the current settings key by key.
    """
    return config.update(**given(sampling=sampling, elicitation=elicitation, roots=roots,
                                 human_in_the_loop=human_in_the_loop, on_human_in_the_loop=on_human_in_the_loop),
                         **unknown)
