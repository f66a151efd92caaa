"""The shapes of client features as the client's signatures name them: what a handler sees (:class:`Sample`,
:class:`Elicitation`), what it decides (:class:`Decision`), the handler classes' shapes (protocols) and what
``sampling=`` / ``elicitation=`` / ``human_in_the_loop=`` / ``roots=`` and the ``on_*`` setters take.

Values and types only, with no handler logic: they live in the client layer so that ``Client`` can name
them without importing :mod:`mcp_litellm.handlers` (a layer up), which defines the handler classes, runs
them, and re-exports these names (``mcp_litellm.handlers.Sample``, ...). A handler class is given as a
subclass of ``SamplingHandler`` / ``ElicitationHandler`` / ``HumanInTheLoopHandler``; the protocols here are
what of those classes the signatures check (the request it holds, ``execute`` and ``run``).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from mcp_types import (
    CreateMessageRequestParams,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ModelPreferences,
    SamplingMessage,
    Tool,
    ToolAnnotations,
)

from mcp_litellm._client.primitives.handler_specs import ElicitationSettings, HandlerSpec, SamplingSettings
from mcp_litellm._core import sampling as _sampling
from mcp_litellm._core.schema_check import schema_errors

__all__ = [
    "ApprovalFunction",
    "ApprovalHandlerArg",
    "ApprovalHandlerShape",
    "ApprovalOutcome",
    "Decision",
    "Elicitation",
    "ElicitationArg",
    "ElicitationFunction",
    "ElicitationHandlerArg",
    "ElicitationHandlerShape",
    "ElicitationOutcome",
    "RootsArg",
    "Sample",
    "SamplingArg",
    "SamplingFunction",
    "SamplingHandlerArg",
    "SamplingHandlerShape",
    "SamplingOutcome",
]


@dataclass(frozen=True)
class Decision:
    """What a handler decided. Build one with :func:`accept`, :func:`reject`, :func:`decline`,
    :func:`cancel`, :func:`approve`, :func:`deny` or :func:`defer` (or the handler methods of the same name).

    Attributes:
        kind: ``"accept"``, ``"reject"``, ``"decline"``, ``"cancel"``, ``"approve"``, ``"deny"`` or ``"defer"``.
        value: the accepted response (sampling) or content (elicitation).
        reason: why it was rejected, declined, cancelled or denied.
        timeout: for ``defer``: seconds to wait for the external decision (``None``: the handler's default).
    """

    kind: str
    value: Any = None
    reason: str | None = None
    timeout: float | None = None


@dataclass
class Sample:
    """A server's sampling request, as handlers and guards see it.

    Attributes:
        params: the SDK's ``CreateMessageRequestParams`` (everything the server sent).
        server_name: the name of the client (server) that asked.
        max_tokens: the server's ``maxTokens`` after the user's ``max_tokens`` cap.
        id: a unique id (used by a deferred approval in ``HumanInTheLoopRegistry``).
    """

    params: CreateMessageRequestParams
    server_name: str
    max_tokens: int
    id: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def messages(self) -> list[SamplingMessage]:
        """The conversation (SDK ``SamplingMessage`` objects)."""
        return list(self.params.messages)

    @property
    def message(self) -> str:
        """All text of the conversation joined by newlines."""
        return _sampling.request_text(self.params)

    @property
    def system_prompt(self) -> str | None:
        """The server's system prompt."""
        return self.params.system_prompt

    @property
    def model_preferences(self) -> ModelPreferences | None:
        """The server's hints and cost/speed/intelligence priorities."""
        return self.params.model_preferences

    @property
    def temperature(self) -> float | None:
        """Requested temperature."""
        return self.params.temperature

    @property
    def stop_sequences(self) -> list[str]:
        """Requested stop sequences."""
        return list(self.params.stop_sequences or [])

    @property
    def metadata(self) -> dict[str, Any]:
        """The server's provider metadata."""
        return dict(self.params.metadata or {})

    @property
    def tools(self) -> list[Tool]:
        """Tools the model may call (SDK ``Tool`` objects)."""
        return list(self.params.tools or [])

    @property
    def tool_choice(self) -> str | None:
        """``"auto"``, ``"required"``, ``"none"`` or ``None``."""
        return self.params.tool_choice.mode if self.params.tool_choice else None

    def to_litellm_messages(self) -> list[dict[str, Any]]:
        """The system prompt and messages in LiteLLM format."""
        return _sampling.to_litellm_messages(self.params)


SamplingOutcome: TypeAlias = "Decision | bool"
"""What a :class:`SamplingHandler`'s ``execute`` returns."""


@dataclass
class Elicitation:
    """A server's request for user input, as handlers see it.

    Attributes:
        id: the server's elicitation id in URL mode, else a generated one; the key for
            ``ElicitationRegistry.complete`` / ``.cancel``.
        message: what to ask the user.
        mode: ``"form"`` (fill in ``requested_schema``) or ``"url"`` (visit ``url``).
        requested_schema: the JSON schema of the expected content (form mode).
        url: the page to open (URL mode).
        server_name: the name of the client (server) that asked.
        params: the SDK request parameters.
    """

    id: str
    message: str
    mode: str
    requested_schema: dict[str, Any] | None
    url: str | None
    server_name: str
    params: ElicitRequestFormParams | ElicitRequestURLParams | None = None

    @classmethod
    def from_params(cls, params: ElicitRequestFormParams | ElicitRequestURLParams, server_name: str) -> Elicitation:
        """Build from the SDK's ``ElicitRequestFormParams`` / ``ElicitRequestURLParams``."""
        if isinstance(params, ElicitRequestFormParams):
            return cls(uuid.uuid4().hex, params.message, "form", dict(params.requested_schema), None, server_name,
                       params)
        eid = getattr(params, "elicitation_id", None) or uuid.uuid4().hex
        return cls(str(eid), params.message, "url", None, params.url, server_name, params)

    def validate(self, content: object) -> list[str]:
        """Why ``content`` would not be accepted (empty when it would)."""
        return schema_errors(content, self.requested_schema)


ElicitationOutcome: TypeAlias = "Decision | Mapping[str, Any] | bool | str | None"
"""What an :class:`ElicitationHandler`'s ``execute`` (or an elicitation function) returns."""


ApprovalOutcome: TypeAlias = "Decision | bool | str | None"
"""What a :class:`HumanInTheLoopHandler`'s ``execute`` (or an approval function) returns."""


class SamplingHandlerShape(Protocol):
    """What the signatures check of a ``SamplingHandler`` subclass's instances."""

    @property
    def sample(self) -> Sample: ...

    def execute(self) -> SamplingOutcome | Awaitable[SamplingOutcome]: ...

    async def run(self) -> object: ...


class ElicitationHandlerShape(Protocol):
    """What the signatures check of an ``ElicitationHandler`` subclass's instances."""

    @property
    def elicitation(self) -> Elicitation: ...

    def execute(self) -> ElicitationOutcome | Awaitable[ElicitationOutcome]: ...

    async def run(self) -> object: ...


class ApprovalHandlerShape(Protocol):
    """What the signatures check of a ``HumanInTheLoopHandler`` subclass's instances."""

    @property
    def tool_name(self) -> str: ...

    @property
    def parameters(self) -> dict[str, Any]: ...

    @property
    def annotations(self) -> ToolAnnotations | None: ...

    @property
    def approval_id(self) -> str: ...

    def execute(self) -> ApprovalOutcome | Awaitable[ApprovalOutcome]: ...

    async def run(self) -> object: ...


SamplingFunction: TypeAlias = "Callable[[Sample], Any]"
"""``fn(sample)``, sync or async: a LiteLLM response, ``accept(...)``/``reject(...)``, ``True`` (the default
completion) or ``False`` (reject)."""

ElicitationFunction: TypeAlias = "Callable[[Elicitation], ElicitationOutcome | Awaitable[ElicitationOutcome]]"
"""``fn(elicitation)``, sync or async: a dict of content (accept), ``accept``/``decline``/``cancel``/``defer``
decisions, ``True``, ``False`` or ``None``."""

ApprovalFunction: TypeAlias = "Callable[[str, dict[str, Any]], ApprovalOutcome | Awaitable[ApprovalOutcome]]"
"""``fn(tool_name, parameters)``, sync or async."""

SamplingHandlerArg: TypeAlias = "type[SamplingHandlerShape] | SamplingFunction | HandlerSpec"
"""A ``SamplingHandler`` subclass, a sampling function, or either with options (a ``HandlerSpec``)."""

ElicitationHandlerArg: TypeAlias = "type[ElicitationHandlerShape] | ElicitationFunction | HandlerSpec"
"""An ``ElicitationHandler`` subclass, an elicitation function, or either with options."""

ApprovalHandlerArg: TypeAlias = "type[ApprovalHandlerShape] | ApprovalFunction | HandlerSpec"
"""A ``HumanInTheLoopHandler`` subclass, an approval function, or either with options."""

SamplingArg: TypeAlias = "bool | SamplingSettings | Mapping[str, Any] | SamplingHandlerArg | None"
"""``sampling=``: on/off, settings, a mapping of settings, or a handler (which enables it)."""

ElicitationArg: TypeAlias = "bool | ElicitationSettings | Mapping[str, Any] | ElicitationHandlerArg | None"
"""``elicitation=``: on/off, settings, a mapping of settings, or a handler (which enables it)."""

RootsArg: TypeAlias = "Sequence[str | os.PathLike[str]] | None"
"""``roots=``: directories to offer (``None``: no roots capability)."""
