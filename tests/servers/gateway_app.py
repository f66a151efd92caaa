"""A gateway in front of a real SDK server over streamable HTTP, answering some JSON-RPC methods itself.

``GatewayApp(server)`` is an ASGI app: every request goes to ``server.streamable_http_app()`` (a real
``MCPServer``), except POSTs of a JSON-RPC method listed in ``answers``, which the gateway answers
itself with an :class:`Answer` (an HTTP status and a body, as proxies and gateways do). A body may hold
``{url}``: the request's full URL, query string included, as gateways echo it in their errors.
``"*"`` in ``answers`` applies to every POST. ``seen`` lists the methods of the POSTs, in order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    """What the gateway answers: ``status``, ``body`` (``str``, or a ``dict`` sent as JSON with the
    request's id), and the ``content_type`` (JSON for a dict body unless given)."""

    status: int
    body: str | dict[str, Any] = ""
    content_type: str | None = None


def jsonrpc_error(code: int, message: str) -> dict[str, Any]:
    """The body of a JSON-RPC error answer (the gateway fills in the request's id)."""
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}}


@dataclass
class GatewayApp:
    server: Any
    answers: dict[str, Answer] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.inner = self.server.streamable_http_app()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.inner(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        try:
            request = json.loads(body)
        except ValueError:
            request = None
        method = request.get("method") if isinstance(request, dict) else None
        self.seen.append(str(method))
        answer = self.answers.get(str(method)) or self.answers.get("*")
        if answer is not None and isinstance(request, dict):
            await self._answer(scope, send, answer, request)
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return dict(await receive())

        await self.inner(scope, replay, send)

    async def _answer(self, scope: dict[str, Any], send: Any, answer: Answer, request: dict[str, Any]) -> None:
        query = scope.get("query_string", b"").decode()
        url = f"http://127.0.0.1:{scope['server'][1]}{scope['path']}" + (f"?{query}" if query else "")
        if isinstance(answer.body, dict):
            payload = json.dumps({**answer.body, "id": request.get("id")}).replace("{url}", url)
            content_type = answer.content_type or "application/json"
        else:
            payload = answer.body.replace("{url}", url)
            content_type = answer.content_type or "text/plain; charset=utf-8"
        data = payload.encode()
        headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": data})
