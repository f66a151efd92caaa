"""The stdio transport: run the server as a subprocess and speak JSON-RPC over its stdin/stdout.

Our own, on anyio's process API, in place of the SDK's ``stdio_client`` (which freezes on a line of
invalid UTF-8, reads long lines in quadratic time, leaves the children of a server that exits promptly
alive, notices a death only as end-of-file, and can block a cancelled call on a server that stopped
reading). It yields the same ``(read, write)`` streams of ``SessionMessage`` the SDK's session uses.

- stdout is split into lines in linear time (``framing``); a line longer than ``max_message_size``
  is dropped and, when its request id can be read (a bounded scan finds it anywhere at the message's top
  level), that call fails at once with a clear error.
  Lines that are not JSON-RPC (banners, stray output, invalid UTF-8) are skipped with a short warning.
  An answer with a known id but an invalid envelope (or nested too deeply to parse) fails that call at
  once instead of being dropped (``messages``).
- Messages to the server are queued, so a server that stops reading never blocks the caller (nor a
  cancellation), and a call's deadline bounds the whole call.
- The process itself is watched: when it exits, the session ends within ``_EXIT_GRACE`` seconds even
  if a child it spawned still holds stdout open.
- The server runs in a process group of its own; on close (and at interpreter exit) the whole group
  is ended, SIGTERM then SIGKILL, even when the server itself already exited (``_end_process_tree``).
- stderr goes to the ``mcp_litellm.server`` logger line by line, each line bounded and with the
  values of the server's ``env`` masked; the last few lines are kept for start-failure reports.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process
from mcp import StdioServerParameters
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage

from mcp_litellm._core.redact import redact_text, remember_secrets
from mcp_litellm._transports.base import ExitReport, Transport, TransportTarget
from mcp_litellm._transports.common import check_keys, check_type
from mcp_litellm._transports.wire.framing import LineFramer, Oversized
from mcp_litellm._transports.wire.messages import (
    DEFAULT_MAX_MESSAGE_SIZE,
    Unreadable,
    fail_oversized,
    oversized_id,
    read_message,
)

__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "ExitReport", "StdioTransport", "parameters"]

logger = logging.getLogger("mcp_litellm.stdio")
_stderr_logger = logging.getLogger("mcp_litellm.server")

_NOISY_LINES_WARNED = 5
"""Unparseable stdout lines logged as warnings per connection; later ones are logged at DEBUG."""
_CHUNK = 1 << 16
"""Bytes read from a pipe at a time."""
_WRITE_QUEUE = 1024
"""Messages queued for a server that is slow to read; past that, senders wait."""
_EXIT_GRACE = 0.5
"""Seconds between the server's exit and the end of the session (for its last output to be read)."""
_CLOSE_GRACE = 2.0
"""Seconds a closing server has, after its stdin is closed, to exit by itself."""
_TERM_GRACE = 1.0
"""Seconds between SIGTERM and SIGKILL for what is left of the server's process group."""
_STDERR_LINE_BYTES = 16 * 1024
"""Bytes of one stderr line that are logged (the rest is counted, not kept)."""
_STDERR_GRACE = 0.5
"""Seconds a failed start waits for the server's last stderr lines to be read."""


def parameters(config: Mapping[str, Any]) -> StdioServerParameters:
    """Validate a stdio config mapping and build the SDK's parameters from it."""
    check_keys("stdio", config, required={"command"}, optional={"args", "env", "cwd"})
    check_type("stdio", "command", config["command"], str, "a string")
    args = config.get("args") or []
    if isinstance(args, str) or not all(isinstance(a, str | int | float) for a in args):
        from mcp_litellm._core.errors import ConfigError

        raise ConfigError("config key 'args' of the 'stdio' transport must be a list of strings")
    env = config.get("env")
    check_type("stdio", "env", env, Mapping, "a mapping of strings")
    cwd = config.get("cwd")
    check_type("stdio", "cwd", cwd, str | os.PathLike, "a path")
    return StdioServerParameters(
        command=config["command"],
        args=[str(a) for a in args],
        env={str(k): str(v) for k, v in env.items()} if env else None,
        cwd=Path(cwd) if cwd is not None else None,
    )


class StdioTransport(Transport):
    """The ``stdio`` transport: config ``command``, ``args``, ``env``, ``cwd``."""

    name = "stdio"

    def check(self) -> None:
        parameters(self.config)

    def open(self, report: ExitReport) -> TransportTarget:
        return _connect(parameters(self.config), self.options.server, report, self.options.max_message_size, self)


# -- the process group ---------------------------------------------------------------------------------

_live_groups: set[int] = set()
"""Process groups of servers not yet ended (POSIX); ended at interpreter exit if still there."""


async def _spawn(params: StdioServerParameters) -> Process:
    env = get_default_environment() | (params.env or {})
    if sys.platform == "win32":  # pragma: no cover - not tested here
        # Windows has no process groups to signal: the SDK's helper puts the server in a Job Object,
        # which _end_process_tree closes (and with it every process the server started).
        from mcp.os.win32.utilities import create_windows_process, get_windows_executable_command

        command = get_windows_executable_command(params.command)
        return await create_windows_process(command, params.args, env, sys.stderr, params.cwd)  # type: ignore[return-value]
    process = await anyio.open_process([params.command, *params.args], env=env, cwd=params.cwd,
                                       start_new_session=True)  # its own session: pgid == pid
    _live_groups.add(process.pid)
    return process


async def _end_process_tree(process: Process, grace: float = _TERM_GRACE) -> None:
    """End the server and everything it started: SIGTERM to its process group, SIGKILL after ``grace``.

    Runs even when the server itself already exited, so the workers, browsers or language servers it
    left behind go with it. (On Windows: the SDK's job-object helper.)
    """
    if sys.platform == "win32":  # pragma: no cover - not tested here
        from mcp.os.win32.utilities import terminate_windows_process_tree

        await terminate_windows_process_tree(process)  # type: ignore[arg-type]
        return
    from mcp.os.posix.utilities import terminate_posix_process_tree

    try:
        await terminate_posix_process_tree(process, grace)
    finally:
        _live_groups.discard(process.pid)


@atexit.register
def _end_groups_at_exit() -> None:
    """Last resort at interpreter exit, after clients were stopped: end any server group still there."""
    groups = list(_live_groups)
    for pgid in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + _TERM_GRACE
    while groups and time.monotonic() < deadline:
        time.sleep(0.02)
        groups = [pgid for pgid in groups if _group_alive(pgid)]
    for pgid in groups:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- the streams -----------------------------------------------------------------------------------------

class _Stdout:
    """Turns the server's stdout bytes into session messages (or errors for one call)."""

    def __init__(self, label: str, limit: int) -> None:
        self.label = label
        self.limit = limit
        self.framer = LineFramer(limit, scan_ids=True)
        self.skipped = 0

    def messages(self, data: bytes) -> list[SessionMessage]:
        found = []
        for frame in self.framer.feed(data):
            message = self._oversized(frame) if isinstance(frame, Oversized) else self._parse(frame)
            if message is not None:
                found.append(message)
        return found

    def _skip(self, line: bytes | str, reason: str) -> None:
        self.skipped += 1
        level = logging.WARNING if self.skipped <= _NOISY_LINES_WARNED else logging.DEBUG
        more = " (further such lines are logged at DEBUG)" if self.skipped == _NOISY_LINES_WARNED else ""
        logger.log(level, "server %r wrote a line to stdout that is %s; ignored it: %.80r%s",
                   self.label, reason, line, more)

    def _parse(self, line: bytes) -> SessionMessage | None:
        if not line.strip():
            return None
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            self._skip(line, "not valid UTF-8")
            return None
        message = read_message(text)
        if not isinstance(message, Unreadable):
            return message
        if message.answer is None:
            self._skip(text, message.reason)
            return None
        logger.warning("server %r answered request %r with %s: %.120r", self.label, message.request_id,
                       message.reason, text)
        return message.answer

    def _oversized(self, frame: Oversized) -> SessionMessage | None:
        request_id = oversized_id(frame.head, frame.tail, frame.member_id)
        return fail_oversized(logger, self.label, self.limit, frame.size, request_id)


@asynccontextmanager
async def _connect(params: StdioServerParameters, label: str, report: ExitReport | None,
                   limit: int, owner: object = None) -> AsyncIterator[Any]:
    secrets = tuple((params.env or {}).values())
    remember_secrets(secrets, owner)
    if report is not None:
        report.secrets = secrets
    process = await _spawn(params)
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    stdin, stdout, stderr = process.stdin, process.stdout, process.stderr
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](_WRITE_QUEUE)
    reading = anyio.CancelScope()
    stdout_done, stdin_done = anyio.Event(), anyio.Event()

    async def pump_stdout() -> None:
        parser = _Stdout(label, limit)
        try:
            async with read_send:
                with reading:
                    async for data in _chunks(stdout):
                        for message in parser.messages(data):
                            await read_send.send(message)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the session is gone
        finally:
            stdout_done.set()

    async def pump_stdin() -> None:
        try:
            async with write_receive:
                async for message in write_receive:
                    # Messages queued meanwhile (many calls in flight) go out with this one, in one write.
                    lines = [_line(message)]
                    while True:
                        try:
                            lines.append(_line(write_receive.receive_nowait()))
                        except (anyio.WouldBlock, anyio.EndOfStream):
                            break
                    await stdin.send(lines[0] if len(lines) == 1 else b"".join(lines))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            reading.cancel()  # the server no longer reads: end the session rather than let calls hang
        finally:
            stdin_done.set()

    async def pump_stderr() -> None:
        framer = LineFramer(_STDERR_LINE_BYTES)
        try:
            async for data in _chunks(stderr):
                for frame in framer.feed(data):
                    _log_stderr(frame, label, secrets, report)
        finally:
            if report is not None:
                report.stderr_ended.set()

    async def watch_exit() -> None:
        status = await process.wait()
        if report is not None:
            report.exit_status = status
        with anyio.move_on_after(_EXIT_GRACE):
            await stdout_done.wait()
        if not stdout_done.is_set():
            logger.info("server %r exited (status %s) while something it started still holds its stdout; "
                        "ending the session", label, status)
        reading.cancel()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump_stdout)
        tasks.start_soon(pump_stdin)
        tasks.start_soon(pump_stderr)
        tasks.start_soon(watch_exit)
        try:
            yield read_receive, write_send
        except BaseException:
            if report is not None:  # a failed start: let its last stderr lines arrive for the error
                with anyio.CancelScope(shield=True), anyio.move_on_after(_STDERR_GRACE):
                    while not report.stderr_ended.is_set() and process.returncode is None:
                        await anyio.sleep(0.01)
            raise
        finally:
            with anyio.CancelScope(shield=True):
                write_send.close()
                with anyio.move_on_after(_TERM_GRACE):
                    await stdin_done.wait()  # queued messages reach a server that still reads
                with suppress(Exception):
                    await stdin.aclose()
                with anyio.move_on_after(_CLOSE_GRACE):
                    await process.wait()
                await _end_process_tree(process)
            tasks.cancel_scope.cancel()


def _line(message: SessionMessage) -> bytes:
    return (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()


async def _chunks(stream: Any) -> AsyncIterator[bytes]:
    """What a pipe delivers, chunk by chunk, until it ends (or breaks)."""
    while True:
        try:
            yield await stream.receive(_CHUNK)
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return


def _log_stderr(frame: bytes | Oversized, label: str, secrets: Sequence[str], report: ExitReport | None) -> None:
    if isinstance(frame, Oversized):
        text = frame.head.decode("utf-8", "replace") + f"… ({frame.size} bytes in all)"
    else:
        text = frame.decode("utf-8", "replace")
    text = redact_text(text.rstrip(), secrets)
    if text:
        _stderr_logger.info("[%s] %s", label, text)
        if report is not None:
            report.tail.append(text[: ExitReport.LINE_CHARS])
