"""Starts conformance clients as forks of one process that imported mcp_litellm once.

The suite starts one client per scenario, all at once (about seventy across the runs of
test_conformance.py); each importing the package again costs about a second of CPU, which on a 2-core CI
machine is most of the run. tests/conformance/test_conformance.py starts this once; the suite's command is
then ``python -I -S forkserver.py --shim``, a few milliseconds of start-up, which hands its arguments,
environment and standard streams to the server over a Unix socket. The server forks; the child becomes the
client (``client.main``: the same code, the same public API, in a fresh process of its own), and its exit
status goes back to the shim, which exits with it. When the shim ends first (the suite's timeout kills it),
the server kills the child's process group.

Protocol: the shim sends one JSON line ``{"argv", "env", "cwd"}`` with its file descriptors 0, 1 and 2
attached (SCM_RIGHTS); the server answers one line ``{"code": N}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys

SOCKET_ENV = "MCP_CONFORMANCE_FORKSERVER"


def shim() -> int:
    """The suite's client command: run ``client.main`` in a fork of the server at ``$MCP_CONFORMANCE_FORKSERVER``."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(os.environ[SOCKET_ENV])
    request = {"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd()}
    socket.send_fds(connection, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = connection.recv(4096)
        if not chunk:
            print("conformance forkserver: the server went away", file=sys.stderr)
            return 1
        answer += chunk
    return int(json.loads(answer)["code"])


def _child(request: dict[str, object], fds: list[int]) -> None:
    """In the fork: become ``python client.py ARGS`` and never return."""
    os.setpgid(0, 0)
    for target, fd in zip((0, 1, 2), fds, strict=True):
        os.dup2(fd, target)
        os.close(fd)
    env = request["env"]
    argv = request["argv"]
    assert isinstance(env, dict) and isinstance(argv, list)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    os.chdir(str(request["cwd"]))
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    import client

    code = 1
    try:
        code = client.main(["client.py", *map(str, argv)])
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _receive(connection: socket.socket) -> tuple[dict[str, object], list[int]] | None:
    data, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
    while data and not data.endswith(b"\n"):
        more = connection.recv(1 << 20)
        if not more:
            break
        data += more
    if not data or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    return json.loads(data), fds


def serve(path: str) -> None:
    import threading

    import client  # noqa: F401  (mcp_litellm and the SDK, imported once for every fork)

    assert threading.active_count() == 1, f"a fork would lose these threads: {threading.enumerate()}"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    print(json.dumps({"ready": True}), flush=True)
    children: dict[socket.socket, int] = {}
    while True:
        readable, _, _ = select.select([listener, *children], [], [], 0.05)
        for ready in readable:
            if ready is listener:
                connection, _ = listener.accept()
                received = _receive(connection)
                if received is None:
                    connection.close()
                    continue
                request, fds = received
                pid = os.fork()
                if pid == 0:
                    listener.close()
                    _child(request, fds)
                for fd in fds:
                    os.close(fd)
                children[connection] = pid
            elif not ready.recv(1):  # the shim ended (killed by the suite's timeout): end its client too
                pid = children.pop(ready)
                ready.close()
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        for connection, pid in list(children.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                del children[connection]
                with contextlib.suppress(OSError):
                    connection.sendall(json.dumps({"code": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
                connection.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shim"]:
        del sys.argv[1]
        sys.exit(shim())
    serve(sys.argv[1])
