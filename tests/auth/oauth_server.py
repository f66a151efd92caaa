"""An OAuth-protected MCP server for the tests, built from the SDK's server-side auth pieces.

One Starlette app on 127.0.0.1 is both the authorization server (discovery, dynamic registration,
an /authorize that approves at once, or denies, by redirecting straight back; code and refresh
exchange; revocation) and the resource server (streamable HTTP at /mcp, SSE at /sse). It runs in
a thread with its own event loop, so tests can look at and change its state (issued tokens, the
grants it saw, the token lifetime) while a client talks to it.

Two grants the SDK's token endpoint lacks are answered by an ASGI layer in front of it:
``client_credentials`` for the pre-registered client ``CC_CLIENT`` (client_secret_basic,
client_secret_post, each where ``auth_methods`` allows it, or a private_key_jwt assertion checked against
``jwt_public_key``). The same layer records the bodies of token requests, so a test can learn the PKCE
verifiers the client sent, and plays the authorization servers some tests need (``OAuthServer``'s
``auth_methods``, ``hide_registered_method``, ``refuse_token``).
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import json
import secrets
import time
import warnings
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.routing import Mount

from tests.helpers.servers import UvicornThread, free_port

CC_CLIENT = ("machine-client", "machine-secret-0123456789")
"""The pre-registered client for the client_credentials grant: (client_id, client_secret)."""
APP_CLIENT = ("app-client", "app-secret-0123456789abcdef")
"""A pre-registered confidential client for the authorization-code grant: (client_id, client_secret)."""
APP_REDIRECT = "http://127.0.0.1:8976/callback"
"""The redirect URI registered for ``APP_CLIENT``."""


_login: contextvars.ContextVar[str | None] = contextvars.ContextVar("test_oauth_login", default=None)
"""Who is logging in at /authorize (the ``X-Test-User`` header of the browser's request), for the tokens' subject."""


class Provider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """In-memory authorization server state."""

    def __init__(self) -> None:
        self.token_ttl = 3600
        self.refresh_delay = 0.0
        self.expiry_early = 0.0  # seconds the server's own expiry precedes the expires_in it announces
        self.deny = False
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.log: list[str] = []
        self.issued: list[OAuthToken] = []
        self.code_values: list[str] = []

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info
        self.log.append("register")

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.log.append("authorize")
        if self.deny:
            return construct_redirect_uri(str(params.redirect_uri), error="access_denied",
                                          error_description="The user said no", state=params.state)
        code = secrets.token_urlsafe(32)
        self.code_values.append(code)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or ["mcp"], expires_at=time.time() + 300, client_id=client.client_id,
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
            subject=_login.get() or "test-user",
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        found = self.codes.get(code)
        return found if found is not None and found.client_id == client.client_id else None

    def issue(self, client_id: str, scopes: list[str], resource: str | None, *, refresh: bool = True,
              subject: str | None = "test-user") -> OAuthToken:
        access = "at_" + secrets.token_hex(16)
        refresh_token = "rt_" + secrets.token_hex(16) if refresh else None
        expires_at = int(time.time() + self.token_ttl - self.expiry_early)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, expires_at=expires_at,
                                          resource=resource, subject=subject)
        if refresh_token is not None:
            self.refresh[refresh_token] = RefreshToken(token=refresh_token, client_id=client_id, scopes=scopes,
                                                       resource=resource, subject=subject)
        token = OAuthToken(access_token=access, expires_in=self.token_ttl, scope=" ".join(scopes) or None,
                           refresh_token=refresh_token)
        self.issued.append(token)
        return token

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        self.log.append("authorization_code")
        return self.issue(client.client_id, authorization_code.scopes, authorization_code.resource,
                          subject=authorization_code.subject)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        if self.refresh_delay:  # a slow token endpoint: two refreshes at once overlap here
            await asyncio.sleep(self.refresh_delay)
        if self.refresh.pop(refresh_token.token, None) is None:  # rotation: a refresh token works once
            self.log.append("refresh_token:reused")
            raise TokenError("invalid_grant", "the refresh token was already used")
        self.log.append("refresh_token")
        return self.issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource,
                          subject=refresh_token.subject)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def revoke_all(self) -> None:
        """Forget every access and refresh token (as if the user revoked the app)."""
        self.access.clear()
        self.refresh.clear()


class _TokenFront:
    """ASGI layer before the app: records token request bodies, answers client_credentials itself."""

    def __init__(self, app: Any, server: OAuthServer) -> None:
        self.app = app
        self.server = server

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.endswith("/authorize"):
            login = dict(scope["headers"]).get(b"x-test-user")
            _login.set(login.decode() if login else None)
        if path.endswith("/.well-known/oauth-authorization-server") and self.server.auth_methods is not None:
            methods = list(self.server.auth_methods)
            await _rewrite_json(self.app, scope, receive, send,
                                lambda metadata: {**metadata, "token_endpoint_auth_methods_supported": methods})
            return
        if path.endswith("/register") and self.server.hide_registered_method:
            # a server that ignores the method asked for, issues a secret and does not say how to send it
            asked = json.loads(await _read(receive))
            asked.pop("token_endpoint_auth_method", None)
            body = json.dumps(asked).encode()
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
                     + [(b"content-length", str(len(body)).encode())]}
            await _rewrite_json(self.app, scope, _replay(body, receive), send,
                                lambda answer: {k: v for k, v in answer.items() if k != "token_endpoint_auth_method"})
            return
        if path.endswith("/revoke") and scope["method"] == "POST":
            # The SDK's revocation handler requires a client_secret field even from a public client (RFC 7009
            # has it send only client_id): supply an empty one, which the "none" method ignores.
            body = await _read(receive)
            self.server.revocations.append(body.decode())
            if b"client_secret=" not in body:
                body += b"&client_secret="
            scope = {**scope, "headers": [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
                     + [(b"content-length", str(len(body)).encode())]}
            await self.app(scope, _replay(body, receive), send)
            return
        if not path.endswith("/token") or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        body = await _read(receive)
        self.server.token_bodies.append(body.decode())
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.server.token_headers.append(headers)
        refusal = self.server.refuse_token(form, headers) if self.server.refuse_token is not None else None
        if refusal is not None:
            await _json(send, 401, {"error": "invalid_client", "error_description": refusal})
            return
        if form.get("grant_type") == "client_credentials":
            await self._client_credentials(scope, form, send)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _client_credentials(self, scope: dict[str, Any], form: dict[str, str], send: Any) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        client_id: str | None = None
        methods = self.server.auth_methods or ("client_secret_basic", "client_secret_post")
        if form.get("client_secret") and "client_secret_post" in methods:
            if (form.get("client_id"), form["client_secret"]) == CC_CLIENT:
                client_id = CC_CLIENT[0]
        elif headers.get("authorization", "").startswith("Basic ") and "client_secret_basic" in methods:
            decoded = base64.b64decode(headers["authorization"][6:]).decode()
            given_id, _, given_secret = decoded.partition(":")
            if (given_id, given_secret) == CC_CLIENT:
                client_id = given_id
        elif form.get("client_assertion") and self.server.jwt_public_key is not None:
            import jwt

            try:
                claims = jwt.decode(form["client_assertion"], self.server.jwt_public_key, algorithms=["ES256", "RS256"],
                                    audience=[self.server.base, self.server.base + "/"])
                if claims.get("iss") == CC_CLIENT[0] == claims.get("sub"):
                    client_id = CC_CLIENT[0]
            except jwt.PyJWTError:
                client_id = None
        if client_id is None:
            self.server.provider.log.append("client_credentials:rejected")
            await _json(send, 401, {"error": "invalid_client", "error_description": "bad client credentials"})
            return
        self.server.provider.log.append("client_credentials")
        token = self.server.provider.issue(client_id, ["mcp"], form.get("resource"), refresh=False)
        await _json(send, 200, token.model_dump(mode="json", exclude_none=True))


async def _read(receive: Any) -> bytes:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            return body


def _replay(body: bytes, receive: Any) -> Any:
    """An ASGI ``receive`` that hands the app ``body`` (already read) first."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _rewrite_json(app: Any, scope: dict[str, Any], receive: Any, send: Any,
                        change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
    """Run ``app`` and send its JSON answer as ``change`` makes it."""
    start: dict[str, Any] = {}
    parts: list[bytes] = []

    async def capture(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
            return
        parts.append(message.get("body", b""))
        if message.get("more_body"):
            return
        body = json.dumps(change(json.loads(b"".join(parts)))).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    await app(scope, receive, capture)


async def _json(send: Any, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class OAuthServer:
    """The server, running in a thread: ``url`` (/mcp), ``sse_url`` (/sse), ``provider`` (its state)."""

    def __init__(self, *, issuer_port: int | None = None, legacy: bool = False,
                 provider: Provider | None = None, auth_methods: tuple[str, ...] | None = None,
                 hide_registered_method: bool = False, front: Callable[[OAuthServer, Any], Any] | None = None) -> None:
        """``issuer_port``: advertise an authorization server on that port (nothing listens there).
        ``legacy``: a 2025-03-26 server: no protected-resource metadata, and authorization server metadata
        at the origin naming the issuer ``<origin>/oauth``, whose endpoints live under /oauth.
        ``provider``: share another server's state (so one can be the authorization server of the other).
        ``auth_methods``: the ``token_endpoint_auth_methods_supported`` to advertise (``APP_CLIENT`` is then
        registered with ``client_secret_post`` unless ``client_secret_basic`` is among them).
        ``hide_registered_method``: dynamic registration ignores the method asked for (so issues a secret
        for ``client_secret_post``) and leaves ``token_endpoint_auth_method`` out of its answer.
        ``refuse_token`` (an attribute): ``(form, headers) -> reason or None``; a reason refuses the token
        request with 401 ``invalid_client``.
        ``front``: ``(server, app) -> app``, an ASGI layer put in front (tests/auth/enterprise_server.py); kept as
        ``.front``."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/mcp"
        self.sse_url = f"{self.base}/sse"
        self.provider = provider or Provider()
        self.token_bodies: list[str] = []
        self.token_headers: list[dict[str, str]] = []
        self.revocations: list[str] = []
        self.jwt_public_key: Any = None
        self.auth_methods = auth_methods
        self.hide_registered_method = hide_registered_method
        self.refuse_token: Callable[[dict[str, str], dict[str, str]], str | None] | None = None
        app_method = "client_secret_basic" if auth_methods is None or "client_secret_basic" in auth_methods else \
            "client_secret_post"
        self.provider.clients[APP_CLIENT[0]] = OAuthClientInformationFull(
            client_id=APP_CLIENT[0], client_secret=APP_CLIENT[1], redirect_uris=[APP_REDIRECT],
            token_endpoint_auth_method=app_method, grant_types=["authorization_code", "refresh_token"],
            scope="mcp",
        )
        issuer = f"http://127.0.0.1:{issuer_port}" if issuer_port else self.base
        if legacy:
            issuer = f"{self.base}/oauth"
        self.issuer = issuer  # what a client with a secret or key configures as oauth.issuer
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            auth = AuthSettings(
                issuer_url=AnyHttpUrl(issuer), resource_server_url=None if legacy else AnyHttpUrl(self.url),
                client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["mcp"],
                                                                      default_scopes=["mcp"]),
                revocation_options=RevocationOptions(enabled=True), required_scopes=["mcp"],
                validate_token_resource=False,
            )
        mcp = MCPServer("oauth-test", auth_server_provider=self.provider, auth=auth, log_level="WARNING")

        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        @mcp.tool()
        def whoami() -> str:
            """The subject of the access token this request came with (who authorized it)."""
            token = get_access_token()
            return (token.subject or "") if token is not None else "anonymous"

        app = mcp.streamable_http_app(host="127.0.0.1")
        sse = mcp.sse_app(host="127.0.0.1")
        app.router.routes.extend(r for r in sse.router.routes if getattr(r, "path", "") in ("/sse", "/messages"))
        if legacy:
            paths = ("/authorize", "/token", "/register")
            endpoints = [r for r in app.router.routes if getattr(r, "path", "") in paths]
            app.router.routes.append(Mount("/oauth", routes=endpoints))
        served: Any = _TokenFront(app, self)
        self.front = front(self, served) if front is not None else None
        self._served = UvicornThread(self.front or served, self.port, log_level="warning", lifespan="on")

    def start(self) -> OAuthServer:
        self._served.start(timeout=20)
        return self

    def stop(self) -> None:
        self._served.stop()

    def grants(self) -> list[str]:
        return list(self.provider.log)


def follow(authorization_url: str) -> str:
    """What a browser does against the auto-approving server: GET the URL, return the redirect."""
    import httpx2

    response = httpx2.get(authorization_url, follow_redirects=False, timeout=10)
    location = response.headers.get("location")
    assert response.status_code in (302, 303, 307), response.status_code
    assert location, "no redirect"
    return str(location)
