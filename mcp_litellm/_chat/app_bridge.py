"""``AppBridge``: the backend half of an MCP Apps host: it answers the JSON-RPC requests an app sends.

A host page renders a tool's interface (``ui://`` HTML) in a sandboxed iframe and forwards the app's
``postMessage`` requests to its backend; there :meth:`AppBridge.ahandle` answers one, for the app of one
:class:`~mcp_litellm.AppView`:

- ``tools/call``: only a tool of the app's own server whose visibility includes ``"app"``, called through
  that server's client (its approval handler and pins apply, as in the chat);
- ``resources/read``: a resource of the same server;
- ``ui/message``: the message's text joins the chat as a user message (the host then asks);
- ``ping``.

Anything else is a JSON-RPC error ``-32601``; a request over ``max_request_bytes`` is refused unread. The
tool never runs for a refused request.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping

from mcp_litellm._chat.apps import AppView, result_dict
from mcp_litellm._chat.chat import Chat
from mcp_litellm._client.client import Client
from mcp_litellm._client.session.loop import run_sync
from mcp_litellm._core.errors import MCPLiteLLMError

METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
DEFAULT_MAX_REQUEST_BYTES = 1_000_000


class _Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _clients(source: object) -> Iterator[Client]:
    """The clients ``source`` (a chat, a client or a group) reaches."""
    if isinstance(source, Client):
        yield source
    elif isinstance(source, Chat):
        yield from source._tools.clients()
    elif isinstance(source, Iterable) and not isinstance(source, (str, bytes, Mapping)):  # a ClientGroup
        yield from (item for item in source if isinstance(item, Client))


class AppBridge:
    """Answers the JSON-RPC requests of the apps (MCP Apps) of a chat's tools; see the module.

    ``source``: a :class:`~mcp_litellm.Chat` (its clients and conversation), a
    :class:`~mcp_litellm.Client` or a :class:`~mcp_litellm.ClientGroup`. ``max_request_bytes``: the largest
    request (as JSON) an app may send.
    """

    def __init__(self, source: object, *, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES) -> None:
        self.source = source
        self.max_request_bytes = max_request_bytes

    def _client(self, server: str) -> Client:
        for client in _clients(self.source):
            if client.name == server:
                return client
        raise _Refused(INVALID_PARAMS, f"no server {server!r} here for this app")

    async def ahandle(self, view: AppView | Mapping[str, object], request: Mapping[str, object]) -> dict[str, object]:
        """The JSON-RPC response (a dict) to ``request`` from the app of ``view`` (an :class:`AppView` or its
        :meth:`~AppView.to_dict`)."""
        request_id = request.get("id") if isinstance(request, Mapping) else None
        try:
            result = await self._answer(view, request)
        except _Refused as refused:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": refused.code, "message": refused.message}}
        except MCPLiteLLMError as error:
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": INTERNAL_ERROR, "message": str(error)}}
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def handle(self, view: AppView | Mapping[str, object], request: Mapping[str, object]) -> dict[str, object]:
        """Blocking twin of :meth:`ahandle`."""
        return run_sync(self.ahandle(view, request))

    async def _answer(self, view: AppView | Mapping[str, object], request: Mapping[str, object]) -> dict[str, object]:
        if not isinstance(request, Mapping):
            raise _Refused(INVALID_REQUEST, "a request is a JSON-RPC object")
        try:
            size = len(json.dumps(request, default=str).encode())
        except (TypeError, ValueError):
            raise _Refused(INVALID_REQUEST, "the request is not JSON") from None
        if size > self.max_request_bytes:
            raise _Refused(INVALID_REQUEST, f"the request is {size} bytes; the limit is {self.max_request_bytes}")
        if "id" not in request or isinstance(request.get("id"), (bool, dict, list)):
            raise _Refused(INVALID_REQUEST, "a request needs an id (a string or a number); the host answers no "
                                            "notifications")
        method = request.get("method")
        if not isinstance(method, str):
            raise _Refused(INVALID_REQUEST, "a request needs a method (a string)")
        server = self._server_of(view)
        params = request.get("params") or {}
        if not isinstance(params, Mapping):
            raise _Refused(INVALID_PARAMS, "params must be an object")
        if method == "ping":
            return {}
        if method == "tools/call":
            return await self._call_tool(server, params)
        if method == "resources/read":
            uri = params.get("uri")
            if not isinstance(uri, str):
                raise _Refused(INVALID_PARAMS, "resources/read needs a uri")
            read = await self._client(server)._read(uri, False)
            return read.model_dump(by_alias=True, mode="json", exclude_none=True)
        if method == "ui/message":
            return self._message(params)
        raise _Refused(METHOD_NOT_FOUND, f"method {method!r} is not answered by the host")

    def _server_of(self, view: object) -> str:
        """The server of the app ``view`` stands for; with a chat, only a view of one of its own calls
        (:attr:`Chat.app_views <mcp_litellm.Chat.app_views>`) counts, so a page cannot name another server."""
        call_id: object
        server: object
        if isinstance(view, AppView):
            call_id, server = view.tool_call_id, view.server
        elif isinstance(view, Mapping):
            call_id, server = view.get("toolCallId"), view.get("server")
        else:
            raise _Refused(INVALID_PARAMS, f"the app's view is an AppView or its to_dict(), not {type(view).__name__}")
        if not isinstance(server, str):
            raise _Refused(INVALID_PARAMS, "the app's view names no server")
        known = getattr(self.source, "app_views", None)
        if isinstance(known, Mapping):
            shown = known.get(call_id) if isinstance(call_id, str) else None
            if not isinstance(shown, AppView) or shown.server != server:
                raise _Refused(INVALID_PARAMS, f"no app of this chat has tool call id {call_id!r} on server "
                                               f"{server!r}: send the view the chat gave (chunk.app.to_dict())")
        return server

    async def _call_tool(self, server: str, params: Mapping[str, object]) -> dict[str, object]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, Mapping):
            raise _Refused(INVALID_PARAMS, "tools/call needs a name and an arguments object")
        client = self._client(server)
        tools = {tool.mcp_name: tool for tool in await client.atools()}
        tool = tools.get(name)
        if tool is None:
            raise _Refused(INVALID_PARAMS, f"server {server!r} has no tool {name!r} for this app")
        if tool.ui is not None and not tool.ui.app_visible:
            raise _Refused(INVALID_PARAMS, f"tool {name!r} of server {server!r} is not visible to apps")
        result = await client.aexecute_tool(tool, dict(arguments))
        return result_dict(result)

    def _message(self, params: Mapping[str, object]) -> dict[str, object]:
        add = getattr(self.source, "add_message", None)
        if not callable(add):
            raise _Refused(METHOD_NOT_FOUND, "ui/message needs a chat: this bridge has none")
        content = params.get("content")
        blocks = content if isinstance(content, list) else [content]
        text = "\n".join(block.get("text", "") for block in blocks
                         if isinstance(block, Mapping) and block.get("type") == "text")
        if not text:
            raise _Refused(INVALID_PARAMS, "ui/message carries no text")
        add(role="user", content=text)
        return {}


__all__ = ["DEFAULT_MAX_REQUEST_BYTES", "AppBridge"]
