"""A server's transport settings, described once: one frozen, validated spec per built-in transport.

``load_config`` (a config file's entry) and ``Client(...)`` (its ``config=``) both build a spec with
:func:`transport_spec`, so the same value is refused by both, with the same words (the config file's,
which name the key and never quote a value that may hold a token). :meth:`StdioSpec.transport` (and its
siblings) makes the client's :class:`~.base.Transport` object.

Each transport's keys (:data:`TRANSPORT_KEYS`) live here too (the config file reads them, and the
``TypedDict``\\ s of ``configs.py`` are tested against them); the transport names and their one alias table
are ``registry``'s.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal, TypeAlias

from mcp_litellm._core.option_checks import Door, closest, seconds_problem
from mcp_litellm._transports.registry import BUILTIN_TRANSPORTS, TRANSPORT_ALIASES, is_builtin, make_transport

if TYPE_CHECKING:
    import httpx2
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

    from mcp_litellm._transports.base import Transport, TransportOptions

__all__ = [
    "BUILTIN_TRANSPORTS", "TRANSPORT_ALIASES", "TRANSPORT_KEYS", "HttpSpec", "MemorySpec", "RegisteredSpec",
    "StdioSpec", "TransportSpec", "transport_spec",
]

_HTTP_KEYS = frozenset({"url", "headers", "timeout", "sse_read_timeout", "auth", "oauth", "allow_http"})
TRANSPORT_KEYS: Mapping[str, frozenset[str]] = {
    "stdio": frozenset({"command", "args", "env", "cwd"}),
    "streamable": _HTTP_KEYS,
    "sse": _HTTP_KEYS,
    "memory": frozenset({"server"}),
}
"""The keys each built-in transport's config may hold (``transport``, naming the transport, aside)."""


def _make(name: str, config: Mapping[str, object], options: TransportOptions) -> Transport:
    return make_transport(name, config, options)


@dataclass(frozen=True)
class StdioSpec:
    """The ``stdio`` transport: the server runs as a subprocess (``command``, ``args``, ``env``, ``cwd``)."""

    command: str
    args: tuple[str, ...] | None = None
    env: Mapping[str, str] | None = None
    cwd: str | os.PathLike[str] | None = None
    name: ClassVar[str] = "stdio"

    def config(self) -> dict[str, object]:
        """The spec as a transport config mapping (only the keys that were given)."""
        config: dict[str, object] = {"command": self.command}
        if self.args is not None:
            config["args"] = list(self.args)
        if self.env is not None:
            config["env"] = dict(self.env)
        if self.cwd is not None:
            config["cwd"] = self.cwd
        return config

    def transport(self, options: TransportOptions) -> Transport:
        """The client's transport object for this spec (no I/O)."""
        return _make(self.name, self.config(), options)


@dataclass(frozen=True)
class HttpSpec:
    """The ``streamable`` (streamable HTTP) or ``sse`` transport: ``url``, ``headers``, ``timeout``,
    ``sse_read_timeout``, ``auth``, ``oauth``, ``allow_http``."""

    url: str
    kind: Literal["streamable", "sse"] = "streamable"
    headers: Mapping[str, str] | None = None
    timeout: float | None = None
    sse_read_timeout: float | None = None
    auth: str | httpx2.Auth | None = None
    oauth: Mapping[str, object] | None = None
    allow_http: bool | None = None

    @property
    def name(self) -> str:
        return self.kind

    def config(self) -> dict[str, object]:
        """The spec as a transport config mapping (only the keys that were given)."""
        config: dict[str, object] = {"url": self.url}
        for key in ("headers", "timeout", "sse_read_timeout", "auth", "oauth", "allow_http"):
            value = getattr(self, key)
            if value is not None:
                config[key] = dict(value) if isinstance(value, Mapping) else value
        return config

    def transport(self, options: TransportOptions) -> Transport:
        """The client's transport object for this spec (no I/O)."""
        return _make(self.name, self.config(), options)


@dataclass(frozen=True)
class MemorySpec:
    """The ``memory`` transport: ``server`` is an ``MCPServer`` (or lowlevel ``Server``) in this process."""

    server: MCPServer | Server[object]
    name: ClassVar[str] = "memory"

    def config(self) -> dict[str, object]:
        return {"server": self.server}

    def transport(self, options: TransportOptions) -> Transport:
        """The client's transport object for this spec (no I/O)."""
        return _make(self.name, self.config(), options)


@dataclass(frozen=True)
class RegisteredSpec:
    """A transport added with ``register_transport``: its factory gets the config as given (unchecked here)."""

    name: str
    settings: Mapping[str, object]

    def config(self) -> dict[str, object]:
        return dict(self.settings)

    def transport(self, options: TransportOptions) -> Transport:
        """The client's transport object for this spec (no I/O)."""
        return _make(self.name, self.settings, options)


TransportSpec: TypeAlias = "StdioSpec | HttpSpec | MemorySpec | RegisteredSpec"
"""The settings of one server's transport."""


def transport_spec(transport: str, config: Mapping[str, object], door: Door, *,
                   also_valid: Iterable[str] = ()) -> TransportSpec:
    """The checked spec of a ``transport`` (a canonical name) with ``config``; errors through ``door``
    (``door.error(key, problem)``). ``also_valid`` names other keys the caller accepts beside the
    transport's (a config file's options), for the list an unknown key's error gives."""
    if transport not in TRANSPORT_KEYS or not is_builtin(transport):
        return RegisteredSpec(transport, dict(config))
    allowed = TRANSPORT_KEYS[transport]
    for key in config:
        if key not in allowed:
            valid = sorted(allowed | set(also_valid))
            near = closest(key, valid, cutoff=0.5)
            hint = f" (did you mean {near!r}?)" if near else ""
            raise door.error(key, f"unknown key for a {transport} server{hint}; valid keys: {', '.join(valid)}")
    if transport == "stdio":
        return _stdio(config, door)
    if transport == "memory":
        return _memory(config, door)
    return _http("sse" if transport == "sse" else "streamable", config, door)


def _stdio(config: Mapping[str, object], door: Door) -> StdioSpec:
    command = config.get("command")
    if command in (None, ""):
        raise door.error("command", "is required for a stdio server")
    if not isinstance(command, str):
        raise door.error("command", f"must be a string, got {door.shown(command)}")
    args = config.get("args")
    if args is not None and (isinstance(args, str) or not isinstance(args, list | tuple)
                             or not all(isinstance(a, str | int | float) and not isinstance(a, bool) for a in args)):
        raise door.error("args", f"must be a list of strings, got {door.shown(args)}")
    cwd = config.get("cwd")
    if cwd is not None and not isinstance(cwd, str | os.PathLike):
        raise door.error("cwd", f"must be a path string, got {door.shown(cwd)}")
    return StdioSpec(command, tuple(str(a) for a in args) if args is not None else None,
                     _string_map("env", config.get("env"), door), cwd)


def _http(kind: Literal["streamable", "sse"], config: Mapping[str, object], door: Door) -> HttpSpec:
    from mcp_litellm._transports.oauth.settings import OAuthProblem, oauth_settings

    url = config.get("url")
    if url in (None, ""):
        raise door.error("url", f"is required for a {kind} server")
    if not isinstance(url, str):
        raise door.error("url", f"must be a string, got {door.shown(url)}")
    if not url.startswith(("http://", "https://")):
        raise door.error("url", "must start with http:// or https://")
    headers = _string_map("headers", config.get("headers"), door)
    seconds: dict[str, float | None] = {}
    for key in ("timeout", "sse_read_timeout"):
        value = config.get(key)
        problem = None if value is None else seconds_problem(value, allow_inf=True)
        if problem is not None:
            raise door.error(key, problem)
        seconds[key] = float(value) if isinstance(value, int | float) else None
    allow_http = config.get("allow_http")
    if allow_http is not None and not isinstance(allow_http, bool):
        raise door.error("allow_http", f"must be {door.flag}, got {door.shown(allow_http)}")
    auth = config.get("auth")
    if auth is not None and not isinstance(auth, str) and not callable(getattr(auth, "async_auth_flow", None)):
        raise door.error("auth", f"must be \"oauth\" (or, in code, an httpx2.Auth object), got {type(auth).__name__}")
    oauth = config.get("oauth")
    try:
        oauth_settings(config)
    except OAuthProblem as exc:
        raise door.error(exc.key, exc.problem) from None
    return HttpSpec(url, kind, headers, seconds["timeout"], seconds["sse_read_timeout"],
                    auth,  # type: ignore[arg-type]  # an httpx2.Auth by its async_auth_flow (checked above)
                    dict(oauth) if isinstance(oauth, Mapping) else None, allow_http)


def _memory(config: Mapping[str, object], door: Door) -> MemorySpec:
    from mcp.server.lowlevel.server import Server
    from mcp.server.mcpserver import MCPServer

    server = config.get("server")
    if server is None:
        raise door.error("server", "is required for a memory server (an MCPServer object)")
    if not isinstance(server, MCPServer | Server):
        raise door.error("server", "must be an mcp MCPServer (or lowlevel Server) object, "
                                   f"got {type(server).__name__}")
    return MemorySpec(server)


def _string_map(key: str, value: object, door: Door) -> dict[str, str] | None:
    """``env``/``headers``: a mapping of names to strings (numbers become strings); never quotes a value."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise door.error(key, f"must be a mapping of names to strings, got {type(value).__name__}")
    for inner, item in value.items():
        if not isinstance(item, str | int | float) or isinstance(item, bool):
            raise door.error(f"{key}.{inner}", f"must be a string, got {type(item).__name__}")
    return {str(k): str(v) for k, v in value.items()}
