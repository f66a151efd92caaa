"""The assertion grants (RFC 7523 JWT bearer): a workload's own JWT, or an ID-JAG the enterprise IdP issues.

- ``jwt_bearer`` (SEP-1933, workload identity federation): the platform's workload token (``oauth.assertion``,
  a string or a callable, or ``oauth.assertion_file``, read again for every token request: platform tokens
  rotate) is the assertion.
- ``id_jag`` (SEP-990, enterprise-managed authorization): the user's ID token (``oauth.id_token``, a string or
  a callable, per user) is exchanged at the IdP's token endpoint for an Identity Assertion JWT Authorization
  Grant (RFC 8693), which is the assertion.

Both run on the SDK's client-credentials provider (discovery, the configured issuer as the only authorization
server its credentials go to, the resource parameter, refresh) with the grant type and assertion swapped in.
The SDK's ``IdentityAssertionOAuthProvider`` does the second leg of SEP-990 too, but as an ``httpx2.Auth`` of
its own: no refresh, no shared token storage lock, no hook for DPoP; it is not used here. A failed grant is
surfaced as it is, never retried with the same assertion nor replaced by another grant.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl

import httpx2
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE

from mcp_litellm._core.errors import AuthError
from mcp_litellm._core.redact import remember_secrets
from mcp_litellm._transports.oauth.provider import _Guarded
from mcp_litellm._transports.oauth.settings import OAuthSettings, TokenSource

__all__ = ["AssertionGrant", "read_token"]

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
IDP_TIMEOUT = 30.0


def _takes_argument(function: Callable[..., object]) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in parameters)


async def read_token(source: TokenSource | None, path: str | None, key: str, label: str, *,
                     user: str | None = None) -> str:
    """The current token of ``source`` (as given, or what its callable returns now: called with ``user``, the
    app's user of this connection, when it takes an argument) or of the file at ``path``."""
    if path is not None:
        try:
            text = await asyncio.to_thread(Path(path).read_text, encoding="utf-8")
        except OSError as exc:
            why = exc.strerror or type(exc).__name__
            raise AuthError(f"OAuth with {label} failed: cannot read {key} {path} ({why}); "
                            "check that the platform mounted the workload token there", http_status=None) from None
        value: object = text.strip()
    elif callable(source):
        function: Callable[..., object] = source
        call: Callable[[], object] = functools.partial(function, user) if _takes_argument(function) else function
        try:
            value = call() if inspect.iscoroutinefunction(source) else await asyncio.to_thread(call)
            if inspect.isawaitable(value):
                value = await value
        except AuthError:
            raise
        except Exception as exc:
            raise AuthError(f"OAuth with {label} failed: the {key} callable raised {type(exc).__name__}; fix it or "
                            "check where it reads the token from", http_status=None) from None
    else:
        value = source
    if not isinstance(value, str) or not value.strip():
        got = "an empty string" if isinstance(value, str) else type(value).__name__
        raise AuthError(f"OAuth with {label} failed: {key} gave {got} instead of a token", http_status=None)
    remember_secrets((value.strip(),))
    return value.strip()


async def exchange_id_token(settings: OAuthSettings, audience: str, resource: str, label: str) -> str:
    """RFC 8693 at the enterprise IdP: the user's ID token for an ID-JAG naming ``audience`` and ``resource``."""
    assert settings.idp_token_endpoint is not None and settings.idp_client_id is not None
    id_token = await read_token(settings.id_token, None, "oauth.id_token", label, user=settings.user)
    form = {"grant_type": TOKEN_EXCHANGE, "requested_token_type": ID_JAG, "subject_token": id_token,
            "subject_token_type": ID_TOKEN, "audience": audience, "resource": resource,
            "client_id": settings.idp_client_id}
    if settings.idp_client_secret:
        form["client_secret"] = settings.idp_client_secret
        remember_secrets((settings.idp_client_secret,))
    endpoint = settings.idp_token_endpoint
    try:
        async with httpx2.AsyncClient(timeout=IDP_TIMEOUT, follow_redirects=False) as http:
            response = await http.post(endpoint, data=form)
    except httpx2.HTTPError as exc:
        raise AuthError(f"OAuth with {label} failed: could not reach the enterprise IdP's token endpoint {endpoint} "
                        f"({type(exc).__name__}); check oauth.idp_token_endpoint and that the IdP is up",
                        http_status=None) from None
    try:
        body = response.json()
    except ValueError:
        body = None
    body = body if isinstance(body, dict) else {}
    if response.status_code != 200 or not isinstance(body.get("access_token"), str):
        code = body.get("error") if isinstance(body.get("error"), str) else None
        said = f"HTTP {response.status_code}{', ' + code if code else ''}"
        raise AuthError(f"OAuth with {label} failed: the enterprise IdP refused to exchange the user's ID token for an "
                        f"identity assertion ({said}); check that oauth.id_token is current and was issued for "
                        "oauth.idp_client_id, and that the IdP lets this client reach the MCP server's authorization "
                        "server (oauth.issuer); not retried", http_status=None)
    assertion = str(body["access_token"])
    remember_secrets((assertion,))
    return assertion


class AssertionGrant(_Guarded, ClientCredentialsOAuthProvider):
    """The SDK's client-credentials flow, its token request turned into an RFC 7523 JWT-bearer grant."""

    async def _assertion(self) -> str:
        settings, label = self._settings, self._label
        if settings.grant == "id_jag":
            assert settings.issuer is not None
            return await exchange_id_token(settings, settings.issuer, self.context.get_resource_url(), label)
        return await read_token(settings.assertion, settings.assertion_file, "oauth.assertion_file"
                                if settings.assertion_file else "oauth.assertion", label)

    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        await self._settle_auth_method()
        request = await super()._exchange_token_client_credentials()  # the issuer check, client auth, resource, scope
        form = dict(parse_qsl(request.content.decode(), keep_blank_values=True))
        form["grant_type"] = JWT_BEARER_GRANT_TYPE
        form["assertion"] = await self._assertion()
        info = self.context.client_info
        if info is not None and not info.client_secret:
            form["client_id"] = info.client_id or ""
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("content-length", "host")}
        return httpx2.Request("POST", request.url, data=form, headers=headers)
