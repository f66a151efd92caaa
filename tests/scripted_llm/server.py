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

from tests.scripted_llm.openai import Turn, completion_body, sse, stream_chunks

__all__ = ["FakeLLM", "Turn", "fake_llm"]


@dataclass
class FakeLLM:
    url: str
    script: list[Turn]
    requests: list[dict[str, Any]] = field(default_factory=list)


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
                payload = sse(stream_chunks(turn, model)).decode()
                content_type = "text/event-stream"
            else:
                payload = json.dumps(completion_body(turn, model, usage=(10, 5)))
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
