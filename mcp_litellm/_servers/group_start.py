"""Starting a group's servers: all at once, the failures collected by server name, and the error a failed
start raises."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from mcp_litellm._client.client import Client
from mcp_litellm._core.errors import ConfigError, MCPLiteLLMError, TransportError
from mcp_litellm._core.redact import redact_chain


async def start_all(clients: list[Client], *, strict: bool) -> dict[str, BaseException]:
    """Start ``clients`` concurrently; returns the failures by server name.

    With ``strict``, the first failure cancels the starts still under way (they are stopped by the
    caller with the rest), so a server that fails at once is reported at once, not after the slowest.
    """
    starts = {asyncio.ensure_future(client.astart()): client for client in clients}
    failures: dict[str, BaseException] = {}
    running = set(starts)
    try:
        while running:
            done, running = await asyncio.wait(running, return_when=asyncio.FIRST_EXCEPTION)
            for start in done:
                error = asyncio.CancelledError() if start.cancelled() else start.exception()
                if error is not None:
                    failures[starts[start].name] = error
            if failures and strict:
                break
    finally:
        for start in running:
            start.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
    return failures


def start_failure(failures: Mapping[str, BaseException], servers: int) -> MCPLiteLLMError:
    """The one error of a strict group's failed start (``servers``: how many it has)."""
    errors = {name: as_library_error(name, error) for name, error in failures.items()}
    if len(errors) == 1:
        return next(iter(errors.values()))
    detail = "; ".join(f"{name!r}: {error}" for name, error in errors.items())
    kind = ConfigError if all(isinstance(e, ConfigError) for e in errors.values()) else TransportError
    error = kind(f"{len(errors)} of {servers} servers failed to start: {detail}")
    error.__cause__ = next(iter(errors.values()))
    return error


def as_library_error(name: str, error: BaseException) -> MCPLiteLLMError:
    """``error`` as the library's exception naming server ``name`` (a foreign one wrapped, redacted)."""
    if isinstance(error, MCPLiteLLMError):
        if error.server is None:
            error.server = name
        return error
    redact_chain(error)
    wrapped = TransportError(f"could not start server {name!r}: {type(error).__name__}: {error}")
    wrapped.__cause__ = error
    wrapped.server = name
    return wrapped


__all__ = ["as_library_error", "start_all", "start_failure"]
