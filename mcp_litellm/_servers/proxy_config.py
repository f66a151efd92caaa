"""The LiteLLM Proxy's ``config.yaml``: its ``mcp_servers:`` entries, read as mcp_litellm server entries.

A proxy entry (``litellm/proxy/_experimental/mcp_server/mcp_server_manager.py``, ``MCPServerConfig``)
names its transport ``stdio``, ``http`` or ``sse`` (``http`` when absent), takes ``command``/``args``/
``env`` or ``url``, and describes credentials as ``auth_type`` plus ``authentication_token`` (or
``auth_value``) and ``static_headers``; string values may be ``os.environ/NAME`` references. This
module rewrites such an entry into the shape ``load_config`` reads (``transport``, ``headers``,
``include_tools``...), building the same headers the proxy sends. Keys that only mean something
inside the proxy (access groups, cost info, aliases...) are dropped with a debug log. An entry whose
authentication the proxy performs itself (OAuth flows, AWS SigV4, pass-through) or whose tools the
proxy generates from an OpenAPI spec cannot be reproduced here: it is loaded disabled, with a
warning that says why.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Mapping
from typing import Any

from mcp_litellm._core.errors import ConfigError

logger = logging.getLogger("mcp_litellm")

PROXY_TOP_LEVEL_KEYS = ("model_list", "litellm_settings", "general_settings", "router_settings")
"""Top-level keys of a LiteLLM Proxy config: with one of them next to ``mcp_servers``, it is a proxy file."""

_PROXY_ONLY_KEYS = frozenset({
    "server_id", "alias", "mcp_info", "protocol_version", "instructions", "extra_headers", "allowed_params",
    "pinned_tools", "access_groups", "env_vars", "allow_all_keys", "available_on_public_internet",
    "delegate_auth_to_upstream", "oauth_passthrough", "allow_sampling", "allow_elicitation",
    "max_concurrent_requests", "rpm", "dcr_bridge", "per_server_oauth_discovery", "tool_name_to_display_name",
    "tool_name_to_description",
    # credentials of the auth types the proxy performs itself (an entry using one is loaded disabled)
    "client_id", "client_secret", "oauth2_flow", "issuer", "authorization_url", "token_url", "registration_url",
    "token_endpoint_auth_method", "scopes", "aws_access_key_id", "aws_secret_access_key", "aws_session_token",
    "aws_region_name", "aws_service_name", "aws_role_name", "aws_session_name", "token_exchange_endpoint",
    "token_exchange_profile", "audience", "subject_token_type", "upstream_resource", "upstream_token_header",
    "id_jag_resource_token_endpoint", "id_jag_resource", "client_private_key", "client_private_key_id",
    "client_assertion_signing_alg",
})
"""Keys of a proxy entry that configure the proxy itself; they have no meaning for a direct connection."""

_PROXY_TRANSPORTS = {"stdio": "stdio", "http": "http", "sse": "sse"}

_STATIC_AUTH = frozenset({"bearer_token", "basic", "api_key", "authorization", "token"})
"""Auth types that are a fixed header built from ``authentication_token``: reproduced here."""

_PROXY_MARKERS = frozenset({"auth_type", "authentication_token", "auth_value", "static_headers", "spec_path",
                            "disallowed_tools"}) | _PROXY_ONLY_KEYS
"""Keys that only a LiteLLM Proxy entry has: an ``mcp_servers`` entry with one is read as the proxy's format."""

_PROXY_PERFORMED_AUTH = frozenset({
    "oauth2", "aws_sigv4", "oauth2_token_exchange", "oauth2_id_jag", "true_passthrough", "oauth_delegate",
})
"""Auth types the proxy carries out at request time (flows, signing, forwarding the caller's token)."""


def is_proxy_config(data: Mapping[str, object]) -> bool:
    """Whether ``data`` is a LiteLLM Proxy config (``mcp_servers:`` next to the proxy's own sections)."""
    return "mcp_servers" in data and any(key in data for key in PROXY_TOP_LEVEL_KEYS)


def is_proxy_entry(entry: object) -> bool:
    """Whether an ``mcp_servers`` entry uses keys only the LiteLLM Proxy's format has."""
    return isinstance(entry, Mapping) and any(key in entry for key in _PROXY_MARKERS)


def _strip_scheme(value: str, scheme: str) -> str:
    """``value`` without a leading ``scheme`` word (``"Bearer abc"`` -> ``"abc"``), as the proxy does."""
    parts = value.split(None, 1)
    return parts[1] if len(parts) == 2 and parts[0].lower() == scheme.lower() else value


def _basic_credentials(value: str) -> str:
    """Base64 credentials for ``Basic``: ``user:password`` is encoded, an encoded value kept."""
    credentials = _strip_scheme(value, "Basic")
    if credentials != value:
        try:
            base64.b64decode(credentials, validate=True)
            return credentials
        except (binascii.Error, ValueError):
            pass
    return base64.b64encode(credentials.encode()).decode()


def _auth_header(auth_type: str, token: str) -> tuple[str, str] | None:
    """The header the proxy sends for a static credential of ``auth_type``; ``None`` for other types."""
    if auth_type in ("bearer_token", "oauth2"):
        return "Authorization", f"Bearer {_strip_scheme(token, 'Bearer')}"
    if auth_type == "basic":
        return "Authorization", f"Basic {_basic_credentials(token)}"
    if auth_type == "api_key":
        return "X-API-Key", token
    if auth_type == "authorization":
        return "Authorization", token
    if auth_type == "token":
        return "Authorization", f"token {_strip_scheme(token, 'token')}"
    return None


def _resolve_os_environ(value: object, environ: Mapping[str, str], where: str) -> object:
    """Replace ``os.environ/NAME`` strings (the proxy's secret references) by the variable's value."""
    if isinstance(value, str) and value.startswith("os.environ/"):
        name = value[len("os.environ/"):]
        found = environ.get(name)
        if found is None:
            raise ConfigError(f"{where}: environment variable {name!r} (from 'os.environ/{name}') is not set")
        return found
    if isinstance(value, Mapping):
        return {k: _resolve_os_environ(v, environ, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_resolve_os_environ(v, environ, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _tool_names(names: object, prefixes: tuple[str, ...]) -> object:
    """The proxy matches tool lists with and without the ``<server>-`` prefix its gateway adds; so do we."""
    if not isinstance(names, list | tuple):
        return names  # load_config reports the wrong type
    result: list[object] = []
    for name in names:
        result.append(name)
        if isinstance(name, str):
            for prefix in prefixes:
                if name.startswith(f"{prefix}-") and len(name) > len(prefix) + 1:
                    result.append(name[len(prefix) + 1:])
    return result


def from_proxy_entry(source: str, name: str, entry: Any, environ: Mapping[str, str]) -> Any:
    """A LiteLLM Proxy ``mcp_servers`` entry rewritten into ``load_config``'s entry shape; ``None`` for
    an entry that is no MCP server (tools the proxy makes from an OpenAPI spec), which is skipped.

    Anything that is not a mapping is returned unchanged (``load_config`` reports it).
    """
    if not isinstance(entry, Mapping):
        return entry
    where = f"{source}: server {name!r}"
    # proxy-only keys are dropped before os.environ/ references are resolved: a secret that only the
    # proxy uses (an OAuth client secret, AWS keys) need not be set where mcp_litellm runs
    dropped = [key for key in entry if key in _PROXY_ONLY_KEYS]
    raw = {key: _resolve_os_environ(value, environ, f"{where}, key {key!r}")
           for key, value in entry.items() if key not in _PROXY_ONLY_KEYS}
    result: dict[str, Any] = {}
    unusable: str | None = None

    transport = raw.pop("transport", None)
    if transport is None:
        transport = "stdio" if "command" in raw else "http"  # the proxy's default is http
    if not isinstance(transport, str) or transport.strip().lower() not in _PROXY_TRANSPORTS:
        shown = repr(transport) if isinstance(transport, str) else type(transport).__name__
        raise ConfigError(f"{where}, key 'transport': unknown transport {shown}; the LiteLLM Proxy's "
                          "mcp_servers entries take 'stdio', 'http' (streamable HTTP) or 'sse'")
    result["transport"] = _PROXY_TRANSPORTS[transport.strip().lower()]

    auth_type = raw.pop("auth_type", None)
    token = raw.pop("authentication_token", None)
    auth_value = raw.pop("auth_value", None)
    token = token if token is not None else auth_value
    static = raw.pop("static_headers", None)
    headers: dict[str, Any] = {}
    if auth_type not in (None, "none"):
        if not isinstance(auth_type, str):
            raise ConfigError(f"{where}, key 'auth_type': must be a string, got {type(auth_type).__name__}")
        header = _auth_header(auth_type, token) if isinstance(token, str) and token else None
        if header is not None:
            headers[header[0]] = header[1]
        elif auth_type in _PROXY_PERFORMED_AUTH:
            unusable = f"its auth_type {auth_type!r} is carried out by the LiteLLM Proxy itself"
        elif auth_type in _STATIC_AUTH:
            unusable = f"its auth_type {auth_type!r} needs 'authentication_token' (or 'auth_value'), which is not set"
        else:
            raise ConfigError(f"{where}, key 'auth_type': unknown auth type {auth_type!r}; the LiteLLM Proxy "
                              "knows none, api_key, bearer_token, basic, authorization, token, oauth2, aws_sigv4, "
                              "oauth2_token_exchange, oauth2_id_jag, true_passthrough, oauth_delegate")
    elif token is not None:
        dropped.append("authentication_token" if "authentication_token" in entry else "auth_value")
    if static is not None:
        if not isinstance(static, Mapping):
            raise ConfigError(f"{where}, key 'static_headers': must be a mapping of header names to strings, "
                              f"got {type(static).__name__}")
        headers.update(static)
    if headers:
        given = raw.get("headers")
        result["headers"] = {**headers, **given} if isinstance(given, Mapping) else headers
        if isinstance(given, Mapping):
            del raw["headers"]

    prefixes = tuple(p for p in (entry.get("alias"), name) if isinstance(p, str) and p)
    for key in ("allowed_tools", "disallowed_tools"):  # load_config's aliases of include/exclude_tools
        if key in raw:
            result[key] = _tool_names(raw.pop(key), prefixes)
    if "timeout" in raw:  # the proxy's per-server timeout bounds each call to the server
        result["request_timeout"] = raw.pop("timeout")
    if "spec_path" in raw:
        raw.pop("spec_path")
        if "command" not in raw:  # the proxy calls the API itself; 'url' is then the API's base URL
            logger.warning("%s is skipped: its tools are made by the LiteLLM Proxy from an OpenAPI spec "
                           "('spec_path'), so there is no MCP server to connect to; reach them through the "
                           "proxy's /mcp gateway", where)
            return None

    result.update(raw)
    if dropped:
        logger.debug("%s: ignoring LiteLLM Proxy settings that do not apply to a direct connection: %s",
                     where, ", ".join(sorted(dropped)))
    if unusable is not None:
        logger.warning("%s is loaded disabled: %s; reach it through the proxy's /mcp gateway, or give it "
                       "'headers' for a direct connection", where, unusable)
        result["disabled"] = True
    return result


__all__ = ["PROXY_TOP_LEVEL_KEYS", "from_proxy_entry", "is_proxy_config", "is_proxy_entry"]
