"""The Responses API (``/v1/responses``) scripted at the HTTP level: output items, whole responses and their
server-sent events, and a respx route answering each request with the next output list."""

from __future__ import annotations

import json

import httpx

BASE = "http://responses.test/v1"


LLM = {"api_base": BASE, "api_key": "sk-test-responses"}


USAGE = {"input_tokens": 40, "output_tokens": 6, "total_tokens": 46, "input_tokens_details": {"cached_tokens": 16},
         "output_tokens_details": {"reasoning_tokens": 2}}


REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENCRYPTED-THOUGHTS"}


def call(call_id, name, arguments):
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}


def text(words):
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": words, "annotations": []}]}


def response(output, n=1):
    return {"id": f"resp_{n}", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4o",
            "output": output, "usage": USAGE}


def events(output):
    """The stream of one response: items added, argument and text deltas, items done, completed."""
    base = {"id": "resp_s", "object": "response", "created_at": 1, "model": "gpt-4o", "output": []}
    out = [{"type": "response.created", "response": {**base, "status": "in_progress"}}]
    for index, item in enumerate(output):
        if item["type"] == "function_call":
            args = item["arguments"]
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "arguments": "", "status": "in_progress"}}]
            out += [{"type": "response.function_call_arguments.delta", "output_index": index, "item_id": item["id"],
                     "delta": piece} for piece in (args[: len(args) // 2], args[len(args) // 2:])]
            out += [{"type": "response.function_call_arguments.done", "output_index": index, "item_id": item["id"],
                     "arguments": args}]
        elif item["type"] == "message":
            words = item["content"][0]["text"]
            out += [{"type": "response.output_item.added", "output_index": index,
                     "item": {**item, "content": [], "status": "in_progress"}},
                    {"type": "response.content_part.added", "output_index": index, "item_id": item["id"],
                     "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
                    {"type": "response.output_text.delta", "output_index": index, "item_id": item["id"],
                     "content_index": 0, "delta": words},
                    {"type": "response.output_text.done", "output_index": index, "item_id": item["id"],
                     "content_index": 0, "text": words}]
        else:
            out += [{"type": "response.output_item.added", "output_index": index, "item": item}]
        out += [{"type": "response.output_item.done", "output_index": index, "item": item}]
    out += [{"type": "response.completed", "response": {**base, "status": "completed", "output": output,
                                                        "usage": USAGE}}]
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in out)


def answer_responses(router, outputs, stream=False, requests=None, raw=None):
    """Answer each /responses request on ``router`` with the next output list (JSON, or server-sent events
    with ``stream``), noting each request's body in ``requests`` (parsed) and ``raw`` (bytes)."""
    requests = [] if requests is None else requests

    def answer(request):
        if raw is not None:
            raw.append(request.content)
        requests.append(json.loads(request.content))
        output = outputs.pop(0)
        if stream:
            return httpx.Response(200, content=events(output), headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=response(output, len(requests)))
    router.post(f"{BASE}/responses").mock(side_effect=answer)
    return requests
