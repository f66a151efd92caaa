"""The stdio transport: run the server as a subprocess and speak JSON-RPC over its stdin/stdout.

The server's stderr is read by a small thread and written to the ``mcp_litellm.server`` logger, so
server banners never land on the user's terminal. Process-tree shutdown (including what ``npx`` or
``uvx`` spawned) is the SDK's: the child runs in its own session and the whole group is terminated.
"""

from __future__ import annotations

import contextvars
import logging
import os
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import StdioServerParameters, stdio_client

from mcp_litellm._transports._common import check_keys, check_type

server_label: contextvars.ContextVar[str] = contextvars.ContextVar("mcp_litellm_server_label", default="server")
"""Name of the client whose transport is being opened; used to tag forwarded stderr lines."""

_stderr_logger = logging.getLogger("mcp_litellm.server")


def _forward_stderr(fd: int, label: str) -> None:
    with open(fd, encoding="utf-8", errors="replace") as stream:
        for line in stream:
            line = line.rstrip()
            if line:
                _stderr_logger.info("[%s] %s", label, line)


def parameters(config: Mapping[str, Any]) -> StdioServerParameters:
    """Validate a stdio config mapping and build the SDK's parameters from it."""
    check_keys("stdio", config, required={"command"}, optional={"args", "env", "cwd"})
    check_type("stdio", "command", config["command"], str, "a string")
    args = config.get("args") or []
    if isinstance(args, str) or not all(isinstance(a, str | int | float) for a in args):
        from mcp_litellm._errors import ConfigError

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
        read_fd, write_fd = os.pipe()
        threading.Thread(
            target=_forward_stderr, args=(read_fd, server_label.get()), name="mcp-litellm-stderr", daemon=True
        ).start()
        errlog = open(write_fd, "w")  # noqa: SIM115 - closed below once the child holds its copy
        try:
            async with stdio_client(params, errlog=errlog) as streams:
                errlog.close()
                yield streams
        finally:
            if not errlog.closed:
                errlog.close()

    return connect()
