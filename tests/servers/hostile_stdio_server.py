"""A hostile MCP server for the stdio transport's tests: raw JSON-RPC over stdio, no SDK.

Run as ``python tests/servers/hostile_stdio_server.py MODE``. It answers the handshake and lists one
tool, ``run(a, size)``, then misbehaves according to MODE:

- ``badutf8``: writes a line of invalid UTF-8 to stdout before every answer.
- ``spawn``: starts a worker process (its stdout not shared) and exits promptly when stdin closes.
- ``holdout``: starts a worker that inherits its stdout, and never answers ``tools/call``.
- ``huge``: answers ``tools/call`` with one text block of ``size`` bytes, in one line.
- ``hugelast``: the same, with the ``id`` written last (``{"result": ..., "jsonrpc": "2.0", "id": 3}``), as
  TypeScript-SDK servers write their answers.
- ``hugemiddle``: the same, with the ``id`` neither at the start nor at the end (after the result, before a
  1 KB member), and an ``"id"`` nested in the result that is not the request's.
- ``stderrflood``: on ``tools/call``, writes ``a`` stderr lines of ``size`` bytes each, then answers.
- ``deaf``: after ``tools/list``, stops reading stdin for good (and never answers again).
- ``malformed``: answers ``tools/call`` with ``"result": null`` (a=1) or a string error code (a=2).
- ``deep``: answers ``tools/call`` with a result holding a value nested ``size`` levels deep (``[[[...]]]``),
  or, when ``size`` is 0, with ``"ran {a}"``.

With ``HOSTILE_PIDFILE`` set, it writes its own pid and its worker's pid there, one per line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

MODE = sys.argv[1]
TOOL = {"name": "run", "description": "Misbehave.",
        "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "size": {"type": "integer"}}}}
out = sys.stdout.buffer


def send(message: dict) -> None:
    if MODE == "badutf8":
        out.write(b"\xff\xfe\xfd\n")
    out.write(json.dumps(message).encode() + b"\n")
    out.flush()


def worker(share_stdout: bool) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                             stdout=None if share_stdout else subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    pidfile = os.environ.get("HOSTILE_PIDFILE")
    if pidfile:
        with open(pidfile, "w") as f:
            f.write(f"{os.getpid()}\n{child.pid}\n")


def call(rid: int, args: dict) -> None:
    a, size = int(args.get("a", 0)), int(args.get("size", 0))
    if MODE == "holdout":
        return
    if MODE == "huge":
        text = "z" * size
        out.write(b'{"jsonrpc": "2.0", "id": ' + str(rid).encode() + b', "result": {"content": [{"type": "text", '
                  b'"text": "' + text.encode() + b'"}]}}\n')
        out.flush()
        return
    if MODE == "hugelast":
        out.write(b'{"result":{"content":[{"type":"text","text":"' + b"z" * size + b'"}]},"jsonrpc":"2.0","id":'
                  + json.dumps(rid).encode() + b"}\n")
        out.flush()
        return
    if MODE == "hugemiddle":
        out.write(b'{"jsonrpc":"2.0","result":{"structuredContent":{"id":999,"note":"a \\"quoted\\" \\\\ id"},'
                  b'"content":[{"type":"text","text":"' + b"z" * size + b'"}]},"id":' + json.dumps(rid).encode()
                  + b',"padding":"' + b"p" * 1024 + b'"}\n')
        out.flush()
        return
    if MODE == "deep" and size:
        out.write(b'{"jsonrpc": "2.0", "id": ' + str(rid).encode() + b', "result": {"content": [{"type": "text", '
                  b'"text": "deep"}], "deep": ' + b"[" * size + b"]" * size + b"}}\n")
        out.flush()
        return
    if MODE == "stderrflood":
        line = b"e" * size + b"\n"
        for _ in range(a):
            sys.stderr.buffer.write(line)
        sys.stderr.flush()
    if MODE == "malformed":
        if a == 1:
            send({"jsonrpc": "2.0", "id": rid, "result": None})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": "bad", "message": "a string code"}})
        return
    send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": f"ran {a}"}]}})


def main() -> None:
    if MODE in ("spawn", "holdout"):
        worker(share_stdout=MODE == "holdout")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        method, rid, params = request.get("method"), request.get("id"), request.get("params") or {}
        if rid is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {
                "protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": {"tools": {}},
                "serverInfo": {"name": f"hostile-{MODE}", "version": "0.0.1"}}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
            if MODE == "deaf":
                time.sleep(600)
        elif method == "tools/call":
            call(rid, params.get("arguments") or {})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}})


if __name__ == "__main__":
    main()
