"""Server config files: the ``mcpServers`` JSON that editors and desktop assistants use, and YAML.

``load_config`` turns a file (or an already parsed mapping) into one :class:`ServerConfig` per server.
Every check happens here, before any process starts, and every error names the server and the key.
Error messages never quote configured values (they may hold tokens); they name keys and types.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp_litellm._client.options import ClientOptions
from mcp_litellm._core.documents import REDIS_SCHEMES
from mcp_litellm._core.errors import ConfigError, NotFoundError
from mcp_litellm._core.option_checks import MESSAGE_SIZE, Door, is_message_size, shown_kind
from mcp_litellm._core.redact import redact_config
from mcp_litellm._servers.file_reading import read_config_file
from mcp_litellm._servers.placeholders import editor_variables, expand_env
from mcp_litellm._servers.proxy_config import from_proxy_entry, is_proxy_config, is_proxy_entry
from mcp_litellm._transports import infer_transport
from mcp_litellm._transports.specs import TRANSPORT_ALIASES, TransportSpec, transport_spec

if TYPE_CHECKING:
    from mcp_litellm._client.client import Client

__all__ = ["ServerConfig", "expand_env", "load_config", "select_configs"]

SERVER_KEYS = ("mcpServers", "mcp_servers", "servers")
"""Top-level keys that hold the servers (editors, the reference design's YAML, VS Code)."""

_TRANSPORT_KEYS = ("type", "transport", "transport_type", "transportType")
_OPTION_ALIASES = {
    "with_prefix": "with_prefix", "withPrefix": "with_prefix",
    "request_timeout": "request_timeout", "requestTimeout": "request_timeout",
    "reset_timeout_on_progress": "reset_timeout_on_progress", "resetTimeoutOnProgress": "reset_timeout_on_progress",
    "max_total_timeout": "max_total_timeout", "maxTotalTimeout": "max_total_timeout",
    "roots": "roots",
    "disabled": "disabled",
    "include_tools": "include_tools", "includeTools": "include_tools",
    "allowed_tools": "include_tools", "allowedTools": "include_tools",
    "exclude_tools": "exclude_tools", "excludeTools": "exclude_tools",
    "disabled_tools": "exclude_tools", "disabledTools": "exclude_tools", "disallowed_tools": "exclude_tools",
    "protocol": "protocol",
    "max_result_chars": "max_result_chars", "maxResultChars": "max_result_chars",
    "per_user": "per_user", "perUser": "per_user",
    "tool_pins": "tool_pins", "toolPins": "tool_pins",
    "max_message_size": "max_message_size", "maxMessageSize": "max_message_size",
    "retry_idempotent": "retry_idempotent", "retryIdempotent": "retry_idempotent",
    "apps": "apps",
}
_CLIENT_OPTIONS = frozenset(f.name for f in fields(ClientOptions))
_FILE_DEFAULTS = {"tool_pins": ("tool_pins", "toolPins"), "max_message_size": ("max_message_size", "maxMessageSize")}
"""The options a config file may give once at the top level, for every server without its own: its keys."""
"""Top-level keys beside ``mcpServers`` that set a default for every server of the file."""
_URL_ALIASES = ("httpUrl", "serverUrl")
"""Other hosts' names for ``url``: Gemini CLI's ``httpUrl`` (streamable HTTP), Windsurf's ``serverUrl``."""
_IGNORED_KEYS = {"description", "autoApprove", "alwaysAllow", "trust"}
"""Keys other MCP hosts write into the same file; accepted and ignored so their files load unchanged."""



@dataclass(frozen=True)
class ServerConfig:
    """One server from a config file, checked and with ``${VAR}`` placeholders expanded.

    Attributes:
        name: the key the server has in the file.
        transport_type: ``"stdio"``, ``"streamable"``, ``"sse"``, ``"memory"`` or a registered name.
        config: the transport config handed to :class:`mcp_litellm.Client`.
        with_prefix: ``True`` always prefixes this server's tool names with ``"{name}__"``, ``False``
            never does (a name collision is then an error), ``None`` prefixes only on a collision.
        request_timeout: seconds per request (``None``: the client's default).
        roots: root directories offered to the server (``None``: not configured).
        disabled: a disabled server is listed but never started.
        include_tools: only tools matching one of these names or globs are offered (``None``: all).
        exclude_tools: tools matching one of these names or globs are never offered.
        options: other client keyword arguments (``protocol``, ``max_result_chars``,
            ``max_message_size``, ``retry_idempotent``, ``reset_timeout_on_progress``, ``max_total_timeout``,
            ``apps``).
        per_user: for :class:`mcp_litellm.ClientPool`: ``True`` gives each user a connection of their
            own, ``False`` shares one among all users, ``None`` (not set) is per user for an OAuth server
            and shared otherwise. A :class:`mcp_litellm.ClientGroup` ignores it.
    """

    name: str
    transport_type: str
    config: dict[str, Any] = field(repr=False)
    with_prefix: bool | None = None
    request_timeout: float | None = None
    roots: tuple[str, ...] | None = None
    disabled: bool = False
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    per_user: bool | None = None
    spec: TransportSpec | None = field(default=None, repr=False, compare=False)
    """The checked transport settings (``config`` is the same as a mapping)."""

    def client_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``ml.client(...)`` beyond name, transport and config."""
        kwargs: dict[str, Any] = dict(self.options)
        if self.request_timeout is not None:
            kwargs["request_timeout"] = self.request_timeout
        if self.with_prefix:
            kwargs["with_prefix"] = True
        if self.roots is not None:
            kwargs["roots"] = list(self.roots)
        return kwargs

    def client(self, *, start: bool = False, **options: Any) -> Client:
        """Build the :class:`mcp_litellm.Client` for this server (not started unless ``start=True``).

        The client offers only the tools ``include_tools`` / ``exclude_tools`` let through.
        """
        from mcp_litellm._client.catalog import ToolFilter
        from mcp_litellm._client.client import Client

        try:
            client = Client(self.name, self.transport_type, self.config, start=False,
                            **{**options, **self.client_kwargs()})
        except ConfigError as exc:  # e.g. a root that does not exist: say which server it belongs to
            raise ConfigError(f"server {self.name!r}: {exc}") from exc
        if self.include_tools is not None or self.exclude_tools:
            client.tool_filter = ToolFilter(self.include_tools, self.exclude_tools)
        if start:
            client.start()
        return client

    def __repr__(self) -> str:
        return (f"ServerConfig(name={self.name!r}, transport_type={self.transport_type!r}, "
                f"config={redact_config(self.config)!r}, disabled={self.disabled})")


def load_config(
    path_or_dict: str | os.PathLike[str] | Mapping[str, Any],
    *,
    environ: Mapping[str, str] | None = None,
) -> dict[str, ServerConfig]:
    """Read MCP server definitions from a JSON or YAML file, or from an already parsed mapping.

    Accepted shapes: ``{"mcpServers": {name: entry}}`` (the format editors and desktop assistants
    use), ``{"mcp_servers": ...}`` and VS Code's ``{"servers": ...}``. An entry is a stdio server
    (``command``, ``args``, ``env``, ``cwd``) or a remote one (``url``, ``headers``; ``type`` /
    ``transport`` / ``transport_type`` of ``"streamable-http"``/``"http"``/``"sse"``; a remote entry
    without one is streamable HTTP unless its path ends in ``/sse``). Per-server options:
    ``with_prefix``, ``request_timeout``, ``reset_timeout_on_progress`` (each progress notification
    restarts a tool call's timeout), ``max_total_timeout`` (seconds a tool call may take in all),
    ``roots``, ``disabled``, ``include_tools`` /
    ``exclude_tools`` (names or globs), ``protocol``, ``max_result_chars``, ``retry_idempotent`` (true or
    false), ``apps`` (true: advertise MCP Apps), ``max_message_size`` (bytes; also a top-level key beside
    ``mcpServers``, the default for every server of the file),
    ``per_user`` (for :class:`mcp_litellm.ClientPool`), ``tool_pins`` (a file of pinned tool definitions,
    relative to the config file; a top-level ``tool_pins`` applies to every server without its own). A remote
    entry may set
    ``"auth": "oauth"`` and ``"oauth": {...}`` (``client_id``, ``client_secret``,
    ``token_endpoint_auth_method``, ``scopes``, ``redirect_uri``, ``client_metadata_url``, ``grant``,
    ``private_key``, ``signing_algorithm``, ``storage``, ``timeout``). String values may use ``${VAR}``,
    ``${env:VAR}`` and ``${VAR:-default}`` (from ``environ``, default ``os.environ``), and VS Code's
    ``${workspaceFolder}`` (the config file's folder, or the folder above it for a file in ``.vscode/``; the
    current directory for a mapping), ``${workspaceFolderBasename}`` and ``${userHome}``.

    A LiteLLM Proxy ``config.yaml`` works as it is: its ``mcp_servers:`` entries (``transport``
    ``stdio``/``http``/``sse``, ``auth_type`` with ``authentication_token``, ``static_headers``,
    ``allowed_tools``/``disallowed_tools``, ``os.environ/NAME`` values) are mapped to the same
    connections the proxy makes; its other sections and proxy-only keys are ignored.

    Files ending in ``.yaml``/``.yml`` are read as YAML (needs ``pip install 'mcp-litellm[yaml]'``),
    others as JSON (JSONC comments and trailing commas allowed). Returns ``{name: ServerConfig}`` in
    file order, disabled servers included. Raises ``ConfigError`` for anything invalid, naming the server and the key.
    """
    env = os.environ if environ is None else environ
    data: object
    if isinstance(path_or_dict, Mapping):
        source, data = "config", path_or_dict
    elif isinstance(path_or_dict, str | os.PathLike):
        source = os.fspath(path_or_dict)
        data = read_config_file(Path(source))
    else:
        raise ConfigError(f"load_config() takes a file path or a mapping, got {type(path_or_dict).__name__}")
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: the top level must be a mapping with an 'mcpServers' key, "
                          f"got {type(data).__name__}")
    present = [key for key in SERVER_KEYS if key in data]
    if not present:
        raise ConfigError(f"{source}: no servers found; expected a top-level key 'mcpServers' (or 'mcp_servers') "
                          "mapping server names to their settings")
    if len(present) > 1:
        raise ConfigError(f"{source}: use only one of {', '.join(map(repr, present))} at the top level")
    servers = data[present[0]]
    if servers is None:
        servers = {}
    if not isinstance(servers, Mapping):
        raise ConfigError(f"{source}: {present[0]!r} must map server names to their settings, "
                          f"got {type(servers).__name__}")
    proxy_file = present[0] == "mcp_servers" and is_proxy_config(data)
    file_defaults = _file_defaults(source, data)
    result: dict[str, ServerConfig] = {}
    for name, entry in servers.items():
        if isinstance(name, bool):
            raise ConfigError(f"{source}: a server name was read as {str(name).lower()}: YAML reads unquoted on, "
                              "off, yes and no as true/false; put the name in quotes (\"off\": instead of off:)")
        if not isinstance(name, str) or not name.strip():
            quote = " (put the name in quotes)" if isinstance(name, int | float) else ""
            raise ConfigError(f"{source}: server names must be non-empty strings, got {name!r}{quote}")
        if proxy_file or (present[0] == "mcp_servers" and is_proxy_entry(entry)):
            entry = from_proxy_entry(source, name, entry, env)
            if entry is None:
                continue
        result[name] = _server(source, name, entry, env, file_defaults)
    return result


def _pins_path(source: str, path: str) -> str:
    """A ``tool_pins`` path, ``~`` expanded and relative to the config file's folder (a Redis URL as it is)."""
    if path.startswith(REDIS_SCHEMES):
        return path
    expanded = Path(os.path.expanduser(path))
    if expanded.is_absolute() or source == "config":
        return str(expanded)
    return str(Path(source).parent / expanded)


def _file_defaults(source: str, data: Mapping[str, object]) -> dict[str, object]:
    """The file-wide defaults given beside the servers (``tool_pins``, ``max_message_size``), checked; each
    applies to every server without its own (see ``_build``)."""
    defaults: dict[str, object] = {}
    for option, keys in _FILE_DEFAULTS.items():
        given = [key for key in keys if key in data]
        if not given:
            continue
        if len(given) > 1:
            raise ConfigError(f"{source}: give {option} once at the top level (also given as {given[0]!r})")
        value = data[given[0]]
        if option == "tool_pins":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{source}: the top-level {given[0]!r} must be one file path (a string)")
            value = _pins_path(source, value)
        elif not is_message_size(value):
            raise ConfigError(f"{source}: top-level {given[0]!r} must be {MESSAGE_SIZE.what}, got {shown_kind(value)}")
        defaults[option] = value
    return defaults


class _Entry:
    """Reads one server entry, remembering which keys were used, for precise errors."""

    def __init__(self, source: str, name: str, entry: Mapping[str, object]) -> None:
        self.source, self.name, self.entry = source, name, entry

    def error(self, key: str | None, problem: str) -> ConfigError:
        at = f", key {key!r}" if key else ""
        return ConfigError(f"{self.source}: server {self.name!r}{at}: {problem}")

    @property
    def door(self) -> Door:
        """This entry's errors, for the specs' checks (``key`` as the file wrote it)."""
        return Door(self.error, file=True)

    def typed(self, key: str, value: object, check: Callable[[object], bool], what: str) -> Any:
        if value is not None and not check(value):
            raise self.error(key, f"must be {what}, got {shown_kind(value)}")
        return value




def _is_str_list(value: object) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)


def _server(source: str, name: str, raw: object, environ: Mapping[str, str],
            file_defaults: Mapping[str, object] | None = None) -> ServerConfig:
    reader = _Entry(source, name, raw if isinstance(raw, Mapping) else {})
    if not isinstance(raw, Mapping):
        raise reader.error(None, f"settings must be a mapping, got {type(raw).__name__}")
    entry: dict[str, object] = {}
    editor = editor_variables(None if source == "config" else source)
    for key, value in raw.items():
        if not isinstance(key, str):
            raise reader.error(None, f"keys must be strings, got {key!r}")
        entry[key] = expand_env(value, environ, f"{source}: server {name!r}, key {key!r}", editor)
    transport = _transport(reader, entry)
    options: dict[str, tuple[str, object]] = {}
    config: dict[str, object] = {}
    seen_options: dict[str, str] = {}
    for key, value in entry.items():
        if key in _TRANSPORT_KEYS or key in _IGNORED_KEYS:
            continue
        if key in _URL_ALIASES:
            given = [k for k in ("url", *_URL_ALIASES) if k in entry]
            if len(given) > 1:
                raise reader.error(given[1], f"give the URL once (also given as {given[0]!r})")
            config["url"] = value
            continue
        option = _OPTION_ALIASES.get(key)
        if option is not None:
            if option in seen_options:
                raise reader.error(key, f"given twice (also as {seen_options[option]!r})")
            seen_options[option] = key
            options[option] = (key, value)
            continue
        config[key] = value
    if transport in ("streamable", "sse"):
        _relative_oauth_paths(reader, config)
    spec = transport_spec(transport, config, reader.door, also_valid={*_OPTION_ALIASES.values(), "type"})
    return _build(reader, spec, options, file_defaults or {})


def _transport(reader: _Entry, entry: Mapping[str, object]) -> str:
    url_key = next((key for key in ("url", *_URL_ALIASES) if key in entry), None)
    if "command" in entry and url_key is not None:
        raise reader.error(url_key, "give either 'command' (a local stdio server) or 'url' (a remote HTTP server), "
                                    "not both")
    given = [key for key in _TRANSPORT_KEYS if key in entry]
    if len(given) > 1:
        raise reader.error(given[1], f"give the transport once (also given as {given[0]!r})")
    if given:
        key = given[0]
        value: str | None = reader.typed(key, entry[key], lambda v: isinstance(v, str), "a string")
        if value is None:
            raise reader.error(key, "must be a transport name, got null")
        from mcp_litellm._transports import transport_names

        custom: str = value.strip().lower()
        custom = TRANSPORT_ALIASES.get(custom, custom)
        if custom in transport_names():
            return custom
        raise reader.error(key, f"unknown transport {value!r}; valid: stdio, streamable-http, http, sse, memory "
                                "(or a name added with register_transport)")
    if "httpUrl" in entry and "command" not in entry:
        return "streamable"
    inferred = infer_transport({**entry, "url": entry[url_key]} if url_key is not None else entry)
    if inferred is not None:
        return inferred
    raise reader.error(None, "needs 'command' (a local stdio server) or 'url' (a remote server)")


def _relative_oauth_paths(reader: _Entry, config: dict[str, object]) -> None:
    """Relative ``storage`` and ``private_key`` paths of ``"oauth": {...}`` in a file are relative to the file's
    directory (the settings themselves are checked by the transport's spec)."""
    oauth = config.get("oauth")
    if isinstance(oauth, Mapping) and reader.source != "config":
        base = Path(reader.source).parent
        oauth = dict(oauth)
        for key in ("storage", "private_key"):
            value = oauth.get(key)
            if (isinstance(value, str) and value not in ("disk", "memory") and "-----BEGIN" not in value
                    and not Path(value).expanduser().is_absolute()):
                oauth[key] = str(base / value)
        config["oauth"] = oauth


def _build(reader: _Entry, spec: TransportSpec, options: dict[str, tuple[str, object]],
           file_defaults: Mapping[str, object]) -> ServerConfig:
    def get(option: str, check: Callable[[object], bool], what: str) -> Any:
        if option not in options:
            return None
        key, value = options[option]
        return reader.typed(key, value, check, what)

    def error(option: str | None, problem: str) -> ConfigError:
        return reader.error(options[option][0] if option in options else option, problem)

    disabled = get("disabled", lambda v: isinstance(v, bool), "true or false")
    per_user = get("per_user", lambda v: isinstance(v, bool), "true or false")
    given = {option: value for option, (_key, value) in options.items()
             if option in _CLIENT_OPTIONS and value is not None}
    checked = ClientOptions.checked(given, Door(error, file=True))
    extra: dict[str, object] = {option: getattr(checked, option) for option in given
                             if option not in ("request_timeout", "with_prefix")}
    roots = get("roots", _is_str_list, "a list of paths")
    include = get("include_tools", _is_str_list, "a list of tool names or globs")
    exclude = get("exclude_tools", _is_str_list, "a list of tool names or globs")
    pins = get("tool_pins", lambda v: isinstance(v, str) and bool(v.strip()), "a file path")
    if pins is not None:
        extra["tool_pins"] = _pins_path(reader.source, pins)
    for option, value in file_defaults.items():  # the file's top-level defaults, for what the server leaves out
        extra.setdefault(option, value)
    return ServerConfig(
        name=reader.name,
        transport_type=spec.name,
        config=spec.config(),
        with_prefix=checked.with_prefix if "with_prefix" in given else None,
        request_timeout=checked.request_timeout if "request_timeout" in given else None,
        roots=tuple(roots) if roots is not None else None,
        disabled=bool(disabled),
        include_tools=tuple(include) if include is not None else None,
        exclude_tools=tuple(exclude or ()),
        options=extra,
        per_user=per_user,
        spec=spec,
    )


def select_configs(source: str | os.PathLike[str] | Mapping[str, Any],
                   only: Iterable[str] | None) -> dict[str, ServerConfig]:
    """The servers of a config file path, a config mapping or ``load_config``'s result; only those named in
    ``only`` (in that order) when given. Disabled servers are included unless ``only`` names them (an error)."""
    if isinstance(source, str | os.PathLike) or not all(isinstance(v, ServerConfig) for v in source.values()):
        configs = load_config(source)
    else:
        configs = dict(source)
    if only is not None:
        wanted_list = list(dict.fromkeys(only))
        unknown = [name for name in wanted_list if name not in configs]
        if unknown:
            raise NotFoundError("server", unknown[0], configs)
        off = [name for name in wanted_list if configs[name].disabled]
        if off:
            raise ConfigError(f"server {off[0]!r} is disabled in the config (\"disabled\": true); "
                              "remove that setting to use it")
        configs = {name: configs[name] for name in wanted_list}
    return configs
