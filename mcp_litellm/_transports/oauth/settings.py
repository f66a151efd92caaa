"""The ``oauth`` settings of an HTTP server, checked once, before any I/O.

``{"auth": "oauth"}`` or ``{"oauth": {...}}`` in a ``streamable`` / ``sse`` config turns on OAuth 2.1.
Both the transports and ``load_config`` check the settings here, so a bad key is reported with the
same words whether it came from code or from a config file. Problems name keys and types, never the
values (a value may be a secret).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from mcp.client.auth import TokenStorage

__all__ = ["ASSERTION_GRANTS", "AUTH_METHODS", "GRANTS", "OAUTH_KEYS", "OAuthProblem", "OAuthSettings", "TokenSource",
           "oauth_settings", "takes_user"]

OAUTH_KEYS = (
    "client_id", "client_secret", "token_endpoint_auth_method", "scopes", "redirect_uri", "client_metadata_url",
    "grant", "private_key", "signing_algorithm", "storage", "timeout", "authorize", "issuer", "token_key", "user",
    "assertion", "assertion_file", "id_token", "idp_token_endpoint", "idp_client_id", "idp_client_secret", "dpop",
)
GRANTS = ("authorization_code", "client_credentials", "private_key_jwt", "jwt_bearer", "id_jag")
ASSERTION_GRANTS = ("jwt_bearer", "id_jag")
"""Grants that present a JWT to the token endpoint (RFC 7523): a workload's own (``jwt_bearer``, SEP-1933) or an
identity assertion the enterprise IdP issued for the user's ID token (``id_jag``, SEP-990)."""
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
"""The values of ``oauth.token_endpoint_auth_method``: how the client authenticates at the token endpoint."""
_ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA")
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_STORAGE_METHODS = ("get_tokens", "set_tokens", "get_client_info", "set_client_info")


TokenSource = (str | Callable[[], str] | Callable[[], Awaitable[str]] | Callable[[str | None], str]
               | Callable[[str | None], Awaitable[str]])
"""A token given as it is, or a callable (sync or async) called whenever a new access token is needed; one that
takes an argument is given the app's user of the connection (``oauth.user``, set by ``ClientPool``)."""


class OAuthProblem(ValueError):
    """One bad ``oauth`` setting: ``key`` (``"oauth.grant"``, ``"auth"``) and what is wrong with it."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


@dataclass(frozen=True, repr=False)
class OAuthSettings:
    """Checked ``oauth`` settings (see the OAuth section of docs/guides/connect.md for what each one does)."""

    client_id: str | None = None
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None
    scopes: tuple[str, ...] | None = None
    redirect_uri: str | None = None
    client_metadata_url: str | None = None
    grant: str = "authorization_code"
    private_key: str | None = None
    signing_algorithm: str = "RS256"
    storage: str | TokenStorage = "disk"
    timeout: float = 300.0
    authorize: Callable[..., object] | None = None
    issuer: str | None = None
    allow_http: bool = False
    token_key: str | None = None
    user: str | None = None
    assertion: TokenSource | None = None
    assertion_file: str | None = None
    id_token: TokenSource | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    dpop: bool = False

    def __repr__(self) -> str:  # secrets stay out of reprs
        shown = {"grant": self.grant, "client_id": self.client_id,
                 "client_secret": "***" if self.client_secret else None,
                 "token_endpoint_auth_method": self.token_endpoint_auth_method,
                 "private_key": "***" if self.private_key else None,
                 "storage": self.storage if isinstance(self.storage, str) else f"<{type(self.storage).__name__}>",
                 "authorize": self.authorize is not None, "issuer": self.issuer,
                 "token_key": "***" if self.token_key else None, "user": self.user}
        if self.grant == "jwt_bearer":
            shown["assertion"] = "***" if self.assertion is not None else None
            shown["assertion_file"] = self.assertion_file
        if self.grant == "id_jag":
            shown.update(id_token="***" if self.id_token is not None else None,
                         idp_token_endpoint=self.idp_token_endpoint, idp_client_id=self.idp_client_id,
                         idp_client_secret="***" if self.idp_client_secret else None)
        if self.dpop:
            shown["dpop"] = True
        return f"OAuthSettings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    @property
    def holds_credentials(self) -> bool:
        """Whether the client authenticates with a secret or a key of its own (not only a public client id)."""
        return bool(self.client_secret or self.private_key or self.grant in ASSERTION_GRANTS)

    @property
    def scope(self) -> str | None:
        """The scopes as the space-separated string OAuth requests carry."""
        return " ".join(self.scopes) if self.scopes else None


def takes_user(authorize: Callable[..., object]) -> bool:
    """True for an ``authorize`` callable that takes two arguments: it is called as ``authorize(url, user)``."""
    import inspect

    try:
        parameters = inspect.signature(authorize).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: the URL only
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2


def _string(key: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise OAuthProblem(f"oauth.{key}", f"must be a non-empty string, got {type(value).__name__}")
    return value.strip()


def _http_url(key: str, value: object, what: str) -> str | None:
    """``value`` as an http(s) URL with a host (``None`` when not given); else ``oauth.<key> must be <what>``."""
    url = _string(key, value)
    if url is not None:
        parts = urlsplit(url)
        if parts.scheme not in ("https", "http") or not parts.hostname:
            raise OAuthProblem(f"oauth.{key}", f"must be {what}")
    return url


def _scopes(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(value.split()) or None
    if isinstance(value, list | tuple) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(v.strip() for v in value) or None
    raise OAuthProblem("oauth.scopes", "must be a list of scope names or one space-separated string, "
                                       f"got {type(value).__name__}")


def _redirect_uri(value: object, *, custom_agent: bool) -> str | None:
    uri = _string("redirect_uri", value)
    if uri is None:
        return None
    parts = urlsplit(uri)
    if custom_agent:  # an authorize callable receives the redirect itself: any http(s) URL will do
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise OAuthProblem("oauth.redirect_uri", "must be an http:// or https:// URL")
        return uri
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme != "http" or parts.hostname not in _LOOPBACK_HOSTS or not port:
        raise OAuthProblem("oauth.redirect_uri", "must be a loopback URL with a port, such as "
                                                 "http://127.0.0.1:8765/callback (mcp-litellm listens there for the "
                                                 "browser's redirect); other URLs need an 'authorize' callable")
    return uri


def _storage(value: object) -> str | TokenStorage:
    if value is None:
        return "disk"
    if isinstance(value, os.PathLike):
        return str(Path(value).expanduser())
    if isinstance(value, str):
        if not value.strip():
            raise OAuthProblem("oauth.storage", "must be 'disk', 'memory', a directory path, a redis:// URL or a "
                                                "TokenStorage object")
        if value in ("disk", "memory"):
            return value
        if value.startswith(_REDIS_SCHEMES):
            return _redis_url(value)
        return str(Path(value).expanduser())
    missing = [m for m in _STORAGE_METHODS if not callable(getattr(value, m, None))]
    if missing:
        raise OAuthProblem("oauth.storage", f"must be 'disk', 'memory', a directory path or an object implementing "
                                            f"mcp.client.auth.TokenStorage; a {type(value).__name__} lacks "
                                            f"{', '.join(missing)}")
    return cast("TokenStorage", value)  # it has the protocol's four methods


def _redis_url(url: str) -> str:
    import importlib.util

    if importlib.util.find_spec("redis") is None:
        raise OAuthProblem("oauth.storage", "a redis:// storage needs the redis package: "
                                            "pip install 'mcp-litellm[redis]'")
    parts = urlsplit(url)
    if parts.scheme != "unix" and not parts.hostname:
        raise OAuthProblem("oauth.storage", "a Redis URL needs a host, such as redis://localhost:6379/0")
    return url


def _token_key(value: object) -> str | None:
    key = _string("token_key", value)
    if key is None:
        return None
    from mcp_litellm._transports.oauth.backends import check_token_key

    try:
        check_token_key(key)
    except ValueError as exc:
        raise OAuthProblem("oauth.token_key", str(exc)) from None
    return key


def _private_key(value: object) -> str | None:
    key = _string("private_key", value)
    if key is None or "-----BEGIN" in key:
        return key
    path = Path(key).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise OAuthProblem("oauth.private_key", "must be a PEM private key or the path of a file holding one; "
                                                f"the file cannot be read ({why})") from None
    if "-----BEGIN" not in text:
        raise OAuthProblem("oauth.private_key", "the file does not hold a PEM private key")
    return text


def _token_source(key: str, value: object) -> TokenSource | None:
    if value is None or callable(value):
        return value  # a callable's signature is checked when it is called
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise OAuthProblem(f"oauth.{key}", "must be a non-empty string or a callable (sync or async) returning one, got "
                                       f"{type(value).__name__}")


def _assertion_file(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not str(value).strip():
        raise OAuthProblem("oauth.assertion_file", "must be the path of a file holding the workload's JWT, such as "
                                                   "/var/run/secrets/tokens/mcp-token")
    return str(Path(value).expanduser())


def _check_assertion_grant(settings: OAuthSettings) -> None:
    """The keys the assertion grants need, and those that belong to them only."""
    grant = settings.grant
    if grant != "jwt_bearer" and (settings.assertion is not None or settings.assertion_file):
        key = "oauth.assertion" if settings.assertion is not None else "oauth.assertion_file"
        raise OAuthProblem(key, "is only used with grant 'jwt_bearer'")
    if grant != "id_jag":
        for key in ("id_token", "idp_token_endpoint", "idp_client_id", "idp_client_secret"):
            if getattr(settings, key) is not None:
                raise OAuthProblem(f"oauth.{key}", "is only used with grant 'id_jag'")
    if grant not in ASSERTION_GRANTS:
        return
    if not settings.client_id:
        raise OAuthProblem("oauth.client_id", f"the {grant} grant needs client_id (the client registered with the "
                                              "MCP server's authorization server)")
    if grant == "jwt_bearer" and (settings.assertion is None) == (settings.assertion_file is None):
        raise OAuthProblem("oauth.assertion", "the jwt_bearer grant needs either assertion (the workload's JWT, or a "
                                              "callable returning it) or assertion_file (a file holding it), not both")
    if grant == "id_jag":
        for key in ("id_token", "idp_token_endpoint", "idp_client_id"):
            if getattr(settings, key) is None:
                raise OAuthProblem(f"oauth.{key}", "the id_jag grant needs id_token (the user's ID token from the "
                                                   "enterprise IdP, or a callable returning it), idp_token_endpoint "
                                                   "and idp_client_id")
        if not settings.client_secret:
            raise OAuthProblem("oauth.client_secret", "the id_jag grant needs client_secret (SEP-990 clients are "
                                                      "confidential)")


def oauth_settings(config: Mapping[str, Any]) -> OAuthSettings | None:
    """The checked OAuth settings of an HTTP server's ``config``, or ``None`` when it does not use OAuth.

    Raises :class:`OAuthProblem` naming the bad key.
    """
    auth = config.get("auth")
    raw = config.get("oauth")
    if isinstance(auth, str):
        if auth.strip().lower() != "oauth":
            raise OAuthProblem("auth", "must be \"oauth\" (or, in code, an httpx2.Auth object)")
    elif auth is not None and raw is not None:
        raise OAuthProblem("oauth", "give either 'oauth' settings or an 'auth' object, not both")
    if raw is None and not isinstance(auth, str):  # no OAuth, or a ready-made httpx2.Auth
        return None
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise OAuthProblem("oauth", f"must be a mapping of OAuth settings, got {type(raw).__name__}")
    unknown = sorted(str(k) for k in raw if k not in OAUTH_KEYS)
    if unknown:
        raise OAuthProblem(f"oauth.{unknown[0]}", f"unknown OAuth setting; valid: {', '.join(OAUTH_KEYS)}")

    authorize = raw.get("authorize")
    if authorize is not None and not callable(authorize):
        raise OAuthProblem("oauth.authorize", "must be a callable (sync or async) taking the authorization URL (and, "
                                              "optionally, the user) and returning the URL the browser was "
                                              "redirected to; it can only be set in code, got "
                                              f"{type(authorize).__name__}")
    user = raw.get("user")
    if user is not None and (not isinstance(user, str) or not user):
        raise OAuthProblem("oauth.user", f"must be a non-empty string (the app's user id), got {type(user).__name__}")
    grant = raw.get("grant") or "authorization_code"
    if grant not in GRANTS:
        raise OAuthProblem("oauth.grant", f"must be one of {', '.join(map(repr, GRANTS))}")
    client_metadata_url = _string("client_metadata_url", raw.get("client_metadata_url"))
    if client_metadata_url is not None:
        parts = urlsplit(client_metadata_url)
        if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/"):
            raise OAuthProblem("oauth.client_metadata_url", "must be an https:// URL with a path (the Client ID "
                                                            "Metadata Document), such as https://example.com/client.json")
    timeout = raw.get("timeout", 300.0)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise OAuthProblem("oauth.timeout", "must be a positive number of seconds to wait for the user")
    algorithm = raw.get("signing_algorithm") or "RS256"
    if algorithm not in _ALGORITHMS:
        raise OAuthProblem("oauth.signing_algorithm", f"must be one of {', '.join(_ALGORITHMS)}")
    auth_method = raw.get("token_endpoint_auth_method")
    if auth_method is not None and auth_method not in AUTH_METHODS:
        raise OAuthProblem("oauth.token_endpoint_auth_method", f"must be one of {', '.join(map(repr, AUTH_METHODS))}")
    issuer = _http_url("issuer", raw.get("issuer"), "the authorization server's issuer URL, such as "
                                                     "https://auth.example.com")
    allow_http = config.get("allow_http", False)
    dpop = raw.get("dpop", False)
    if not isinstance(dpop, bool):
        raise OAuthProblem("oauth.dpop", f"must be true or false, got {type(dpop).__name__}")
    if dpop:
        from mcp_litellm._transports.oauth.dpop import needs_cryptography

        missing = needs_cryptography()
        if missing is not None:
            raise OAuthProblem("oauth.dpop", missing)
    idp_token_endpoint = _http_url("idp_token_endpoint", raw.get("idp_token_endpoint"),
                                   "the enterprise IdP's token endpoint URL, such as https://idp.example.com/oauth2/token")
    if idp_token_endpoint is not None:
        parts = urlsplit(idp_token_endpoint)
        if parts.scheme == "http" and parts.hostname not in _LOOPBACK_HOSTS and allow_http is not True:
            raise OAuthProblem("oauth.idp_token_endpoint", "the user's ID token goes there: use https:// (http:// "
                                                           "only on this machine, or with allow_http)")
    settings = OAuthSettings(
        assertion=_token_source("assertion", raw.get("assertion")),
        assertion_file=_assertion_file(raw.get("assertion_file")),
        id_token=_token_source("id_token", raw.get("id_token")),
        idp_token_endpoint=idp_token_endpoint,
        idp_client_id=_string("idp_client_id", raw.get("idp_client_id")),
        idp_client_secret=_string("idp_client_secret", raw.get("idp_client_secret")),
        dpop=dpop,
        issuer=issuer,
        allow_http=allow_http is True,
        client_id=_string("client_id", raw.get("client_id")),
        client_secret=_string("client_secret", raw.get("client_secret")),
        token_endpoint_auth_method=auth_method,
        scopes=_scopes(raw.get("scopes")),
        redirect_uri=_redirect_uri(raw.get("redirect_uri"), custom_agent=authorize is not None),
        client_metadata_url=client_metadata_url,
        grant=grant,
        private_key=_private_key(raw.get("private_key")),
        signing_algorithm=algorithm,
        storage=_storage(raw.get("storage")),
        timeout=float(timeout),
        authorize=authorize,
        token_key=_token_key(raw.get("token_key")),
        user=user,
    )
    if grant == "client_credentials" and not (settings.client_id and settings.client_secret):
        raise OAuthProblem("oauth.client_secret" if settings.client_id else "oauth.client_id",
                           "the client_credentials grant needs both client_id and client_secret")
    if grant == "private_key_jwt" and not (settings.client_id and settings.private_key):
        raise OAuthProblem("oauth.private_key" if settings.client_id else "oauth.client_id",
                           "the private_key_jwt grant needs client_id and private_key (a PEM key or its file)")
    _check_assertion_grant(settings)
    if grant != "private_key_jwt" and settings.private_key:
        raise OAuthProblem("oauth.private_key", "is only used with grant 'private_key_jwt'")
    if settings.client_secret and not settings.client_id:
        raise OAuthProblem("oauth.client_secret", "needs client_id too (the pre-registered client)")
    _check_auth_method(settings)
    if settings.holds_credentials and settings.issuer is None:
        raise OAuthProblem("oauth.issuer", "is required with a client secret or private key (or an assertion "
                                           "grant), which are sent only to that authorization server: set it to "
                                           "the issuer URL your credentials belong to (for a server that is its "
                                           "own authorization server, its "
                                           "origin, such as https://mcp.example.com)")
    return settings


def _check_auth_method(settings: OAuthSettings) -> None:
    """``oauth.token_endpoint_auth_method`` must fit the grant and the client it describes."""
    method = settings.token_endpoint_auth_method
    key = "oauth.token_endpoint_auth_method"
    if method is None:
        return
    if settings.grant == "private_key_jwt":
        raise OAuthProblem(key, "does not apply to grant 'private_key_jwt' (it always signs a JWT assertion)")
    if method == "none" and settings.grant == "client_credentials":
        raise OAuthProblem(key, "the client_credentials grant authenticates with the client secret: use "
                                "'client_secret_basic' or 'client_secret_post'")
    if method == "none" and settings.client_secret:
        raise OAuthProblem(key, "'none' sends no client secret, but oauth.client_secret is set: drop one of them")
    if method != "none" and settings.client_id and not settings.client_secret:
        raise OAuthProblem(key, f"{method!r} sends the client secret, but oauth.client_secret is not set")
