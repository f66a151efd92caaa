"""The shapes of what ``on_sampling`` / ``on_elicitation`` / ``on_human_in_the_loop`` and the matching
``sampling=`` / ``elicitation=`` / ``human_in_the_loop=`` options take: a handler class, or a plain
function (sync or async) of the right parameters."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from mcp_litellm.handlers._approval import ApprovalOutcome, HumanInTheLoopHandler
    from mcp_litellm.handlers._elicitation import Elicitation, ElicitationHandler, ElicitationOutcome
    from mcp_litellm.handlers._sampling import Sample, SamplingHandler
    from mcp_litellm.handlers._specs import ElicitationSettings, HandlerSpec, SamplingSettings

SamplingFunction: TypeAlias = "Callable[[Sample], Any]"
"""``fn(sample)``, sync or async: a LiteLLM response, ``accept(...)``/``reject(...)``, ``True`` (the default
completion) or ``False`` (reject)."""

ElicitationFunction: TypeAlias = "Callable[[Elicitation], ElicitationOutcome | Awaitable[ElicitationOutcome]]"
"""``fn(elicitation)``, sync or async: a dict of content (accept), ``accept``/``decline``/``cancel``/``defer``
decisions, ``True``, ``False`` or ``None``."""

ApprovalFunction: TypeAlias = "Callable[[str, dict[str, Any]], ApprovalOutcome | Awaitable[ApprovalOutcome]]"
"""``fn(tool_name, parameters)``, sync or async."""

SamplingHandlerArg: TypeAlias = "type[SamplingHandler] | SamplingFunction | HandlerSpec"
ElicitationHandlerArg: TypeAlias = "type[ElicitationHandler] | ElicitationFunction | HandlerSpec"
ApprovalHandlerArg: TypeAlias = "type[HumanInTheLoopHandler] | ApprovalFunction | HandlerSpec"

SamplingArg: TypeAlias = "bool | SamplingSettings | Mapping[str, Any] | SamplingHandlerArg | None"
"""``sampling=``: on/off, settings, a mapping of settings, or a handler (which enables it)."""

ElicitationArg: TypeAlias = "bool | ElicitationSettings | Mapping[str, Any] | ElicitationHandlerArg | None"
"""``elicitation=``: on/off, settings, a mapping of settings, or a handler (which enables it)."""

RootsArg: TypeAlias = "Sequence[str | os.PathLike[str]] | None"
"""``roots=``: directories to offer (``None``: no roots capability)."""
