"""A minimal stdio MCP server that imports nothing heavy, for timing connects rather than Python start-up.

It answers the initialize handshake (protocol 2025-11-25), ``ping`` and an empty ``tools/list``;
any other request gets JSON-RPC "method not found", so a client that first tries a newer protocol
falls back to the handshake. Notifications are ignored. ``--delay SECONDS`` waits that long before
reading anything, like a server that spends its start-up waiting on I/O (a download, a database).
"""

from __future__ import annotations

import json
import sys
import time


def answer(message: dict[str, object]) -> dict[str, object] | None:
    if "id" not in message:  # a notification
        return None
    method = message.get("method")
    if method == "initialize":
        result: dict[str, object] = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "tiny", "version": "1.0"},
        }
    elif method == "ping":
        result = {}
    elif method == "tools/list":
        result = {"tools": []}
    else:
        return {"jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": f"Method not found: {method}"}}
    return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def main() -> None:
    if sys.argv[1:2] == ["--delay"]:
        time.sleep(float(sys.argv[2]))
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
