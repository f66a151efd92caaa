"""The stdio transport: run the server as a subprocess and speak JSON-RPC over its stdin/stdout.

The server's stderr is read by a small thread and written to the ``mcp_litellm.server`` logger, so
server banners never land on the user's terminal. Process-tree shutdown (including what ``npx`` or
``uvx`` spawned) is the SDK's: the child runs in its own session and the whole group is terminated.
Lines on the server's stdout that are not JSON-RPC are skipped; each of the first few per connection
is reported as one short warning (no traceback) on the SDK's ``mcp.client.stdio`` logger.
"""

from __future__ import annotations

import collections
import contextvars
import logging
import os
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import StdioServerParameters, stdio_client

from mcp_litellm._core.redact import redact_text
from mcp_litellm._transports.common import check_keys, check_type

server_label: contextvars.ContextVar[str] = contextvars.ContextVar("mcp_litellm_server_label", default="server")
"""Name of the client whose transport is being opened; used to tag forwarded stderr lines."""

_stderr_logger = logging.getLogger("mcp_litellm.server")

_NOISY_LINES_WARNED = 5
"""Unparseable stdout lines logged as warnings per connection; later ones are logged at DEBUG."""

_stdout_noise: contextvars.ContextVar[list[int] | None] = contextvars.ContextVar(
    "mcp_litellm_stdout_noise", default=None
)
"""Per connection: how many unparseable stdout lines were seen (set while the transport opens)."""


def _short_reason(exc: BaseException | None) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()
        except Exception:  # pragma: no cover - defensive: any pydantic error shape
            first = []
        if first and first[0].get("type") == "json_invalid":
            return "not JSON"
        if first:
            return f"not a JSON-RPC message ({len(first)} validation errors)"
    return type(exc).__name__ if exc is not None else "unparseable"


class _GarbageLineFilter(logging.Filter):
    """Turn the SDK's per-line error-with-traceback for a non-JSON-RPC stdout line into one short warning.

    The SDK skips such lines (a banner printed to stdout, stray debug output) and the session goes on;
    a full traceback per line buries the one fact that matters: the server writes non-protocol output.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "Failed to parse JSONRPC message from server" or not record.exc_info:
            return True
        exc = record.exc_info[1]
        line: Any = ""
        errors = getattr(exc, "errors", None)
        if callable(errors):
            try:
                line = errors()[0].get("input", "")
            except Exception:  # pragma: no cover - defensive
                line = ""
        counter = _stdout_noise.get()
        seen = 1
        if counter is not None:
            counter[0] += 1
            seen = counter[0]
        level = logging.WARNING if seen <= _NOISY_LINES_WARNED else logging.DEBUG
        if not logging.getLogger(record.name).isEnabledFor(level):
            return False
        more = " (further such lines are logged at DEBUG)" if seen == _NOISY_LINES_WARNED else ""
        record.levelno, record.levelname = level, logging.getLevelName(level)
        record.msg = "server %r wrote a line to stdout that is %s; ignored it: %.80r%s"
        record.args = (server_label.get(), _short_reason(exc), line, more)
        record.exc_info, record.exc_text = None, None
        return True


logging.getLogger("mcp.client.stdio").addFilter(_GarbageLineFilter())


class ExitReport:
    """What a stdio server left behind, for the error when it fails to start: the last lines of its
    stderr (which are also logged to ``mcp_litellm.server`` as they arrive)."""

    TAIL_LINES = 3
    LINE_CHARS = 200

    def __init__(self) -> None:
        self.tail: collections.deque[str] = collections.deque(maxlen=self.TAIL_LINES)
        self.stderr_ended = threading.Event()
        self.secrets: tuple[str, ...] = ()

    def describe(self) -> str | None:
        """``"its stderr ended with: ..."`` (secrets masked), or ``None`` when it wrote nothing.

        (The exit status is not known here: the SDK does not hand its process out.)
        """
        if not self.tail:
            return None
        lines = [redact_text(line, self.secrets) for line in self.tail]
        lines = [line if len(line) <= self.LINE_CHARS else line[: self.LINE_CHARS - 1] + "…" for line in lines]
        return f"its stderr ended with: {' | '.join(lines)}"


exit_report: contextvars.ContextVar[ExitReport | None] = contextvars.ContextVar("mcp_litellm_exit_report",
                                                                                default=None)
"""Set by the connection's owner task before it opens the transport; the stdio transport fills it in."""

_STDERR_GRACE = 0.5
"""Seconds a failed start waits for the server's last stderr lines to be read."""


def _forward_stderr(fd: int, label: str, report: ExitReport | None) -> None:
    try:
        with open(fd, encoding="utf-8", errors="replace") as stream:
            for line in stream:
                line = line.rstrip()
                if line:
                    _stderr_logger.info("[%s] %s", label, line)
                    if report is not None:
                        report.tail.append(line)
    finally:
        if report is not None:
            report.stderr_ended.set()


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


def open_stdio(config: Mapping[str, Any]) -> Any:
    """Transport factory for ``stdio``: config ``command``, ``args``, ``env``, ``cwd``."""
    params = parameters(config)

    @asynccontextmanager
    async def connect() -> AsyncIterator[Any]:
        _stdout_noise.set([0])  # the owner task's context: the SDK's reader task inherits it
        report = exit_report.get()
        if report is not None:
            report.secrets = tuple((params.env or {}).values())
        read_fd, write_fd = os.pipe()
        threading.Thread(
            target=_forward_stderr, args=(read_fd, server_label.get(), report), name="mcp-litellm-stderr",
            daemon=True,
        ).start()
        errlog = open(write_fd, "w")  # noqa: SIM115 - closed below once the child holds its copy
        try:
            async with stdio_client(params, errlog=errlog) as streams:
                errlog.close()
                yield streams
        except BaseException:
            if report is not None:  # the process is gone (the SDK waited for it): collect what it left
                if not errlog.closed:
                    errlog.close()
                with anyio.move_on_after(_STDERR_GRACE):
                    while not report.stderr_ended.is_set():
                        await anyio.sleep(0.01)
            raise
        finally:
            if not errlog.closed:
                errlog.close()

    return connect()
