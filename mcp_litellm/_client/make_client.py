"""``client(...)``: make a :class:`Client` (and connect it), with ``Client``'s parameters spelt out."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn

from mcp_litellm._client.client import Client
from mcp_litellm._core.types import NOT_GIVEN, NotGiven, TransportName
from mcp_litellm._transports.configs import TransportConfig
from mcp_litellm._transports.messages import DEFAULT_MAX_MESSAGE_SIZE

if TYPE_CHECKING:
    from mcp_litellm._client.handler_types import ApprovalHandlerArg, ElicitationArg, RootsArg, SamplingArg
    from mcp_litellm._client.notifications import SessionLostHandler
    from mcp_litellm._client.pins import PinStore

__all__ = ["client"]


def client(
    name: str,
    transport_type: TransportName | None = None,
    config: TransportConfig | Mapping[str, Any] | None = None,
    *,
    start: bool = True,
    request_timeout: float = 30.0,
    reset_timeout_on_progress: bool = False,
    max_total_timeout: float | None = None,
    protocol: str = "auto",
    with_prefix: bool = False,
    max_result_chars: int | None = None,
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
    sampling: SamplingArg | NotGiven = NOT_GIVEN,
    elicitation: ElicitationArg | NotGiven = NOT_GIVEN,
    roots: RootsArg | NotGiven = NOT_GIVEN,
    human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
    on_human_in_the_loop: ApprovalHandlerArg | NotGiven | None = NOT_GIVEN,
    tool_pins: str | os.PathLike[str] | PinStore | None = None,
    retry_idempotent: bool = True,
    on_session_lost: SessionLostHandler | None = None,
    apps: bool = False,
    **unknown: NoReturn,
) -> Client:
    """Create a :class:`Client` (the same as ``Client(...)``, with the same parameters, described there);
    connects at once unless ``start=False``."""
    return Client(name, transport_type, config, start=start, request_timeout=request_timeout,
                  reset_timeout_on_progress=reset_timeout_on_progress, max_total_timeout=max_total_timeout,
                  protocol=protocol, with_prefix=with_prefix, max_result_chars=max_result_chars,
                  max_message_size=max_message_size, sampling=sampling, elicitation=elicitation, roots=roots,
                  human_in_the_loop=human_in_the_loop, on_human_in_the_loop=on_human_in_the_loop,
                  tool_pins=tool_pins, retry_idempotent=retry_idempotent, on_session_lost=on_session_lost,
                  apps=apps,
                  **unknown)
