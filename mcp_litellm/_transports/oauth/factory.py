"""The ``httpx2.Auth`` for an HTTP server's ``oauth`` settings: which provider (:mod:`.provider`,
:mod:`.grants`) and which token storage (:mod:`.storage`)."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import TokenStorage
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.client.auth.extensions.client_credentials import SignedJWTParameters
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientMetadata, TokenEndpointAuthMethod
from pydantic import AnyUrl

from mcp_litellm._core.redact import redact_url, remember_secrets
from mcp_litellm._core.sdk_compat import PROTECTED_RESOURCE, set_resource_validator
from mcp_litellm._transports.oauth.backends import sealer_for
from mcp_litellm._transports.oauth.grants import AssertionGrant
from mcp_litellm._transports.oauth.provider import _AuthorizationCode, _ClientCredentials, _Guarded, _PrivateKeyJWT
from mcp_litellm._transports.oauth.settings import OAuthSettings
from mcp_litellm._transports.oauth.storage import TokenStore, oauth_directory
from mcp_litellm._transports.oauth.user_agent import CALLBACK_PATH, UserAgent, free_port

__all__ = ["oauth_auth", "token_store"]


def token_store(url: str, settings: OAuthSettings, *, label: str | None = None) -> TokenStore | TokenStorage:
    """The token storage ``settings`` name for the server at ``url``: a :class:`TokenStore` for
    ``"disk"``, ``"memory"``, a directory or a ``redis://`` URL (under ``settings.user`` when set, encrypted
    with ``settings.token_key`` or ``$MCP_LITELLM_TOKEN_KEY`` when either is set), else the user's own
    ``TokenStorage`` object."""
    storage = settings.storage
    if not isinstance(storage, str):
        return storage
    shown = label or url
    user = settings.user
    if storage == "memory":
        return TokenStore(url, None, server=shown, user=user)
    sealer = sealer_for(settings.token_key)
    if storage.startswith(("redis://", "rediss://", "unix://")):
        return TokenStore(url, None, server=shown, user=user, redis=storage, sealer=sealer)
    directory = oauth_directory() if storage == "disk" else Path(storage)
    return TokenStore(url, directory, server=shown, user=user, sealer=sealer)


def _same_origin(transport: str) -> Callable[[str, str | None], Awaitable[None]]:
    """Resource check for SSE: the SSE endpoint (``/sse``) rarely is the advertised resource
    (often ``/mcp`` on the same server), so a resource on the same origin is accepted."""

    async def check(server_url: str, resource: str | None) -> None:
        if resource is None:
            return
        ours, theirs = urlsplit(server_url), urlsplit(resource)
        if (ours.scheme, ours.netloc.lower()) != (theirs.scheme, theirs.netloc.lower()):
            raise OAuthFlowError(f"{PROTECTED_RESOURCE} {resource} does not match expected {server_url}")

    return check


def oauth_auth(url: str, settings: OAuthSettings, *, transport: str, label: str | None = None,
               server: str | None = None) -> httpx2.Auth:
    """The ``httpx2.Auth`` that runs OAuth for the MCP server at ``url`` as ``settings`` say (``server``: the
    name of the client it serves, shown when a person is asked to authorize)."""
    shown = redact_url(label or url)  # shown in prompts, errors and the token store: no secrets in it
    store: TokenStorage = token_store(url, settings, label=shown)
    validate = _same_origin(transport) if transport == "sse" else None
    provider: _Guarded
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "issuer will be required in 3.0": we find it by discovery
        if settings.grant in ("jwt_bearer", "id_jag"):
            assert settings.client_id
            provider = AssertionGrant(url, store, settings.client_id, settings.client_secret or "",
                                      scope=settings.scope, issuer=settings.issuer)
            provider._fixed_client_info = provider._fixed_client_info.model_copy(update={
                "client_secret": settings.client_secret, "grant_types": [JWT_BEARER_GRANT_TYPE],
                "token_endpoint_auth_method": settings.token_endpoint_auth_method or (
                    None if settings.client_secret else "none")})
        elif settings.grant == "client_credentials":
            assert settings.client_id and settings.client_secret
            provider = _ClientCredentials(url, store, settings.client_id, settings.client_secret, scope=settings.scope,
                                          issuer=settings.issuer)
        elif settings.grant == "private_key_jwt":
            assert settings.client_id and settings.private_key
            signer = SignedJWTParameters(issuer=settings.client_id, subject=settings.client_id,
                                         signing_key=settings.private_key,
                                         signing_algorithm=settings.signing_algorithm)
            provider = _PrivateKeyJWT(url, store, settings.client_id, signer.create_assertion_provider(),
                                      scope=settings.scope, issuer=settings.issuer)
        else:
            redirect_uri = settings.redirect_uri or f"http://127.0.0.1:{free_port()}{CALLBACK_PATH}"
            agent = UserAgent(settings, redirect_uri, shown, server)
            metadata = OAuthClientMetadata(
                redirect_uris=[AnyUrl(redirect_uri)],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                client_name="mcp-litellm",
                scope=settings.scope,
                # a native app with a loopback redirect is a public client (RFC 8252 §8.4): registered without
                # a secret unless the user asks for a confidential one
                token_endpoint_auth_method=cast(TokenEndpointAuthMethod, settings.token_endpoint_auth_method or "none"),
            )
            provider = _AuthorizationCode(url, metadata, store, agent.redirect, agent.callback,
                                          client_metadata_url=settings.client_metadata_url,
                                          validate_resource_url=validate)
    if validate is not None:
        set_resource_validator(provider, validate)
    provider._guard(shown, settings, store)
    remember_secrets((settings.client_secret, settings.idp_client_secret,
                      *(value for value in (settings.assertion, settings.id_token) if isinstance(value, str))))
    return provider
