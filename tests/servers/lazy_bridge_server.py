"""A stdio bridge to a handshake-era server that initialises its upstream lazily, as supergateway's
``--streamableHttp URL`` bridge does.

It relays JSON-RPC lines between its stdin/stdout and a child process, the fixture server over stdio
(a real SDK ``MCPServer``). When the first request is ``initialize`` it is relayed, and the session is
the client's. When the first request is anything else (the ``server/discover`` probe of
``protocol="auto"``), the bridge initialises the upstream itself first (its own ``initialize`` and
``notifications/initialized``) and then answers that request as a handshake-era upstream does
("Method not found"); from then on the upstream is initialised, and a client's ``initialize`` is
refused as the TypeScript SDK's servers refuse it: -32600 "Invalid Request: Server already initialized".

``--initialised``: the upstream counts as initialised from the start, so every ``initialize`` is refused.
``--pids FILE``: append a line with the bridge's pid and its child's, one line per start.

Run: ``python lazy_bridge_server.py [--initialised] [--pids FILE]``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent / "fixture_server.py"
_BRIDGE_ID = "bridge-own-initialize"


def main() -> None:
    args = sys.argv[1:]
    initialised = "--initialised" in args
    child = subprocess.Popen([sys.executable, str(FIXTURE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    if "--pids" in args:
        with open(args[args.index("--pids") + 1], "a") as pids:
            pids.write(f"{os.getpid()} {child.pid}\n")
    assert child.stdin is not None and child.stdout is not None
    upstream_in, upstream_out = child.stdin, child.stdout
    write_lock = threading.Lock()

    def reply(message: dict[str, Any]) -> None:
        with write_lock:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()

    def upstream(message: dict[str, Any]) -> None:
        upstream_in.write((json.dumps(message) + "\n").encode())
        upstream_in.flush()

    def relay_back() -> None:
        for line in upstream_out:
            message = json.loads(line)
            if message.get("id") == _BRIDGE_ID:
                continue  # the answer to the bridge's own initialize
            reply(message)

    threading.Thread(target=relay_back, daemon=True).start()
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            message = json.loads(line)
            method, request_id = message.get("method"), message.get("id")
            if method is None or request_id is None:  # a notification or an answer: relayed
                upstream(message)
                continue
            if method == "initialize":
                if initialised:
                    reply({"jsonrpc": "2.0", "id": request_id,
                           "error": {"code": -32600, "message": "Invalid Request: Server already initialized"}})
                else:
                    initialised = True
                    upstream(message)
                continue
            if not initialised:  # the first request is not initialize: connect the upstream lazily
                initialised = True
                upstream({"jsonrpc": "2.0", "id": _BRIDGE_ID, "method": "initialize",
                          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "lazy-bridge", "version": "0"}}})
                upstream({"jsonrpc": "2.0", "method": "notifications/initialized"})
            if method == "server/discover":  # a handshake-era upstream does not know it
                reply({"jsonrpc": "2.0", "id": request_id,
                       "error": {"code": -32601, "message": f"Method not found: {method}"}})
                continue
            upstream(message)
    finally:
        child.terminate()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            child.kill()


if __name__ == "__main__":
    main()
