"""Hosted MCP (``chat.with_hosted_mcp``): remote MCP servers the provider calls itself, in the chat's one
tool loop.

The chat offers each server to the model as a native Responses API tool (``{"type": "mcp", "server_label",
"server_url", "allowed_tools", "require_approval", "headers"}``); the provider lists its tools and calls
them without a round trip through the user's process. The tool loop runs such a chat as any other: each
step is one model request (:func:`request`, through ``litellm.aresponses``), its answer read into the
assistant message (:mod:`.items`: the provider's calls and approval requests ride on ``message.provider``),
and the provider's approval requests are one more kind of pending call answered in the round
(:func:`settle`), counted against ``max_tool_rounds`` with the chat's own tool calls.

- :mod:`.server`: the servers as given (label, URL, headers, allowed tools, approval rule) and their
  request tools;
- :mod:`.items`: Responses output items into messages and the history back into input items;
- :mod:`.turn`: the request, and the provider's part of an answer (hooks, approvals, history).
"""

from mcp_litellm._chat.hosted.items import MCP_ITEMS, HostedAssembler, ProviderItems, read_response, responses_input
from mcp_litellm._chat.hosted.server import HostedServer, RequireApproval, check_require_approval, hosted_server
from mcp_litellm._chat.hosted.turn import HostedChat, hosted_model, only_provider, request, settle

__all__ = ["MCP_ITEMS", "HostedAssembler", "HostedChat", "HostedServer", "ProviderItems", "RequireApproval",
           "check_require_approval", "hosted_model", "hosted_server", "only_provider", "read_response", "request",
           "responses_input", "settle"]
