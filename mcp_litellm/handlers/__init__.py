"""Handlers for what a server asks of the client, and for approving tool calls.

- :class:`SamplingHandler` (``client.on_sampling``): a server asks for an LLM completion.
- :class:`ElicitationHandler` (``client.on_elicitation``): a server asks the user for input.
- :class:`HumanInTheLoopHandler` (``client.on_human_in_the_loop``): approve each tool call.

Plain functions (sync or async) work wherever a handler class does. Deferred decisions complete
through :class:`ElicitationRegistry` and :class:`HumanInTheLoopRegistry` from any thread.

Internal (not in ``__all__``, not public API): ``decide_tool_call(spec, tool, arguments, server)``, the one way
to ask an approval handler about a call, for callers outside a client (a chat's hosted MCP servers).
"""

from mcp_litellm._core.public import show_as_public as _show_as_public
from mcp_litellm.handlers._approval import HumanInTheLoopHandler
from mcp_litellm.handlers._approval import decide_tool_call as decide_tool_call
from mcp_litellm.handlers._base import (
    Decision,
    Handler,
    accept,
    approve,
    cancel,
    decline,
    defer,
    deny,
    guard,
    reject,
)
from mcp_litellm.handlers._elicitation import Elicitation, ElicitationHandler
from mcp_litellm.handlers._registry import ElicitationRegistry, HumanInTheLoopRegistry
from mcp_litellm.handlers._sampling import Sample, SamplingHandler

__all__ = [
    "Decision",
    "Elicitation",
    "ElicitationHandler",
    "ElicitationRegistry",
    "Handler",
    "HumanInTheLoopHandler",
    "HumanInTheLoopRegistry",
    "Sample",
    "SamplingHandler",
    "accept",
    "approve",
    "cancel",
    "decline",
    "defer",
    "deny",
    "guard",
    "reject",
]

_show_as_public(globals(), __all__)  # handler classes show as mcp_litellm.handlers.X
