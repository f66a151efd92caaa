"""A scripted OpenAI-compatible chat-completions endpoint on 127.0.0.1, for driving chats end to end.

Each POST to ``/v1/chat/completions`` takes the next scripted turn (plain text, or tool calls) and
answers as JSON or, when the request asks to stream, as server-sent events with the tool-call
arguments split across chunks like real providers do. Requests are recorded for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Turn:
    """One scripted model answer: text, and/or tool calls as ``(id, name, arguments dict)``, sent after
    ``delay`` seconds (a slow model). A ``status`` other than 200 answers with an OpenAI-style error
    whose message is ``content``."""

    content: str = ""
    tool_calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    delay: float = 0.0
    status: int = 200


@dataclass
class FakeLLM:
    url: str
    script: list[Turn]
    requests: list[dict[str, Any]] = field(default_factory=list)


def _chunks(turn: Turn, model: str) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    words = turn.content.split(" ")
    for i, word in enumerate(words):
        if word or i:
            yield chunk({"content": word if i == 0 else " " + word})
    for index, (call_id, name, arguments) in enumerate(turn.tool_calls):
        text = json.dumps(arguments)
        half = len(text) // 2
        yield chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                     "function": {"name": name, "arguments": text[:half]}}]})
        yield chunk({"tool_calls": [{"index": index, "function": {"arguments": text[half:]}}]})
    yield chunk({}, "tool_calls" if turn.tool_calls else "stop")


def _message(turn: Turn, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.content or None}
    if turn.tool_calls:
        message["tool_calls"] = [{"id": call_id, "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(arguments)}}
                                 for call_id, name, arguments in turn.tool_calls]
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if turn.tool_calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


@contextmanager
def fake_llm(script: list[Turn], respond: Callable[[dict[str, Any]], Turn] | None = None) -> Iterator[FakeLLM]:
    """Serve ``script`` until the block ends; a request beyond the script gets HTTP 500.

    With ``respond``, each request is answered with ``respond(request body)`` instead (a model that
    answers what it is asked, for concurrent chats whose turns arrive in any order)."""
    state = FakeLLM(url="", script=list(script))
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
            with lock:
                state.requests.append(body)
                turn = state.script.pop(0) if state.script and respond is None else None
            if respond is not None:
                turn = respond(body)
            if turn is None:
                self.send_error(500, "the fake model has no more scripted turns")
                return
            if turn.delay:
                time.sleep(turn.delay)
            model = body.get("model", "fake")
            if turn.status != 200:
                payload = json.dumps({"error": {"message": turn.content, "type": "invalid_request_error"}})
                content_type = "application/json"
            elif body.get("stream"):
                payload = "".join(f"data: {json.dumps(c)}\n\n" for c in _chunks(turn, model)) + "data: [DONE]\n\n"
                content_type = "text/event-stream"
            else:
                payload = json.dumps(_message(turn, model))
                content_type = "application/json"
            data = payload.encode()
            self.send_response(turn.status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(data)))
            try:
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up waiting (a slow turn interrupted)
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.timeout = 10
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
