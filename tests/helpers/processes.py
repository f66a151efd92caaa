"""The process table, read from /proc: which processes carry a marker, whether a pid is alive, waiting until they
are gone; and a tool call run in a thread (to watch it end while the test acts on the server)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import mcp_litellm as ml


def interrupt(process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Stop ``process`` as Ctrl-C would (SIGINT, so a uvicorn app runs its shutdown), killing it after
    ``timeout`` seconds; nothing to do if it already ended."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def processes_with(marker: str) -> list[int]:
    """PIDs of live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def wait_no_processes(marker: str, timeout: float = 10.0) -> list[int]:
    """Wait until no process carries ``marker``; returns what is left (empty on success)."""
    deadline = time.monotonic() + timeout
    while (left := processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def wait_dead(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def call_in_thread(client: ml.Client, tool: str,
                   arguments: dict[str, object]) -> tuple[threading.Thread, dict[str, object]]:
    """Start ``client.execute_tool`` in a thread; the dict gets ``result`` or ``error``, and ``at`` (when it ended)."""
    outcome: dict[str, object] = {}

    def pending() -> None:
        try:
            outcome["result"] = client.execute_tool(tool, arguments)
        except BaseException as exc:
            outcome["error"] = exc
        outcome["at"] = time.monotonic()

    caller = threading.Thread(target=pending)
    caller.start()
    return caller, outcome
