"""A misbehaving MCP server for the reliability suite: raw JSON-RPC over stdio, no SDK.

Run as ``python tests/servers/bad_stdio_server.py MODE``. It speaks just enough of the handshake
era (``server/discover`` is refused, so clients fall back to ``initialize``) to list one tool,
``add(a, b)``, and then misbehaves according to MODE:

- ``garbage``: writes non-JSON and invalid JSON-RPC lines to stdout before every real message.
- ``mute``: answers the handshake and ``tools/list`` but never answers ``tools/call``.
- ``silent``: never writes anything at all.
- ``invalid``: answers ``tools/call`` with a result that is not a CallToolResult.
- ``schema``: the tool declares an output schema and returns structured content that violates it.
- ``oversized``: answers ``tools/call`` with a single 8 MB text result.
"""

from __future__ import annotations

import json
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "garbage"
GARBAGE = [
    "Server starting... (a banner printed to stdout by mistake)",
    "{not json at all",
    '{"jsonrpc": "2.0", "method": 5}',
    '{"jsonrpc": "2.0", "id": 987654, "result": {}}',
    "[1, 2, 3]",
    "",
]
TOOL = {
    "name": "add",
    "description": "Add two integers.",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]},
}
if MODE == "schema":
    TOOL["outputSchema"] = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


def send(message: dict) -> None:
    if MODE == "garbage":
        sys.stdout.write("\n".join(GARBAGE) + "\n")
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(request: dict) -> dict | None:
    method, rid, params = request.get("method"), request.get("id"), request.get("params") or {}
    if rid is None:  # a notification
        return None
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": f"bad-{MODE}", "version": "0.0.1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [TOOL]}
    if method == "tools/call":
        args = params.get("arguments") or {}
        total = int(args.get("a", 0)) + int(args.get("b", 0))
        if MODE == "mute":
            return None
        if MODE == "invalid":
            return {"content": "this should be a list of content blocks", "isError": "perhaps"}
        if MODE == "schema":
            return {"content": [{"type": "text", "text": "not a number"}], "structuredContent": {"sum": "three"}}
        if MODE == "oversized":
            return {"content": [{"type": "text", "text": "y" * 8_000_000}]}
        return {"content": [{"type": "text", "text": str(total)}]}
    raise LookupError(method)


def main() -> None:
    for line in sys.stdin:
        if MODE == "silent" or not line.strip():
            continue
        request = json.loads(line)
        try:
            result = answer(request)
        except LookupError:
            send({"jsonrpc": "2.0", "id": request["id"],
                  "error": {"code": -32601, "message": f"Method not found: {request.get('method')}"}})
            continue
        if result is not None:
            send({"jsonrpc": "2.0", "id": request["id"], "result": result})


if __name__ == "__main__":
    main()
