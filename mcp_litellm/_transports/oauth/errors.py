"""What went wrong in an OAuth flow, in words that say how to fix it and quote no secret.

:func:`describe_failure` turns the SDK's exceptions into the text of an :class:`~mcp_litellm.AuthError`;
for ``invalid_client`` it names the client that was refused (pre-registered, registered just now, a
registration stored by an earlier run, a Client ID Metadata Document) and how it authenticated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import httpx2
from mcp.client.auth.exceptions import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from pydantic import ValidationError

from mcp_litellm._core.errors import AuthError
from mcp_litellm._core.sdk_compat import (
    PRM_FETCH_FAILED,
    PROTECTED_RESOURCE,
    STATE_MISMATCH,
    is_iss_mismatch,
    token_error_parts,
)

__all__ = ["Client", "describe_failure"]


def _token_error_code(text: str) -> tuple[int | None, str | None, str | None]:
    """The HTTP status, OAuth ``error`` code and ``error_description`` in the SDK's
    ``Token exchange failed (400): {...}``."""
    status, body = token_error_parts(text)
    try:
        parsed = json.loads(body)
    except ValueError:
        return status, None, None
    code = parsed.get("error") if isinstance(parsed, dict) else None
    described = parsed.get("error_description") if isinstance(parsed, dict) else None
    described = " ".join(described.split())[:200] if isinstance(described, str) and described.strip() else None
    return status, code if isinstance(code, str) else None, described


_METHOD_WORDS = {
    "none": "without a client secret (as a public client, token_endpoint_auth_method 'none')",
    "client_secret_basic": "with its client secret in an HTTP Basic header (client_secret_basic)",
    "client_secret_post": "with its client secret in the request body (client_secret_post)",
}


@dataclass(frozen=True)
class Client:
    """Who authenticated at the token endpoint, and how (for the ``invalid_client`` message)."""

    kind: str  # "pre-registered", "new registration", "stored registration", "metadata document"
    client_id: str | None
    method: str | None
    supported: tuple[str, ...]
    grant: str = "authorization_code"


def _invalid_client(client: Client, said: str) -> str:
    """What the authorization server refused (which client, which auth method) and what to do."""
    if client.method is None:
        how = "without a client secret"
    else:
        how = _METHOD_WORDS.get(client.method, f"with token_endpoint_auth_method {client.method!r}")
    supports = f" (it supports: {', '.join(client.supported)})" if client.supported else ""
    other = [m for m in client.supported if m in _METHOD_WORDS and m != client.method]
    if client.method == "private_key_jwt":
        return (f"the authorization server refused the client {client.client_id!r}{said}, which authenticated with "
                "a signed JWT (private_key_jwt); check oauth.client_id, oauth.private_key and "
                "oauth.signing_algorithm, and that the server holds this key's public half for the client")
    if client.kind == "pre-registered":
        return (f"the authorization server refused the pre-registered client {client.client_id!r}{said}, which "
                f"authenticated {how}; check oauth.client_id and oauth.client_secret, and set "
                f"oauth.token_endpoint_auth_method if the server expects another method{supports}")
    if client.kind == "metadata document":
        return (f"the authorization server refused the client identified by oauth.client_metadata_url{said}; "
                "check that the document is served at that URL and lists this redirect URI")
    if client.kind == "stored registration":
        return (f"the authorization server refused the client registration stored by an earlier run{said}, which "
                f"authenticated {how}; the server may have dropped or expired it: run 'mcp-litellm logout NAME' "
                "(or delete the stored tokens) to register anew on the next connection")
    confidential = [m for m in other if m != "none"]
    fix = (f"set oauth.token_endpoint_auth_method to {confidential[0]!r} to register a confidential client"
           if client.method == "none" and confidential else
           f"set oauth.token_endpoint_auth_method to {other[0]!r}" if other else
           "set oauth.token_endpoint_auth_method to the method the server expects")
    return (f"the authorization server refused the client it had just registered dynamically{said}, which "
            f"authenticated {how}{supports}; {fix}, or register a client with the server beforehand and set "
            "oauth.client_id (and oauth.client_secret)")


def refused_assertion(grant: str, code: str | None, said: str, client_id: str | None) -> str:
    """What a token endpoint's refusal of an assertion grant means, and what to do (for ``describe_failure``)."""
    what = ("the workload's JWT assertion (grant jwt_bearer)" if grant == "jwt_bearer"
            else "the identity assertion (ID-JAG) the enterprise IdP issued for the user (grant id_jag)")
    if code == "invalid_scope":
        fix = "check oauth.scopes"
    elif code == "unauthorized_client":
        fix = f"the client {client_id!r} may not use this grant: ask the authorization server's administrator"
    elif grant == "jwt_bearer":
        fix = ("check that oauth.assertion (or oauth.assertion_file) holds a current token whose audience is the "
               "authorization server (oauth.issuer) and whose issuer that server trusts")
    else:
        fix = "check oauth.issuer and that the IdP is trusted by the MCP server's authorization server"
    return f"the authorization server refused {what}{said}; {fix} (not retried)"


def describe_failure(exc: BaseException, client: Client) -> str:
    """What went wrong in an OAuth flow and how to fix it, without quoting secrets."""
    text = str(exc)
    if isinstance(exc, AuthError):
        return text
    if isinstance(exc, OAuthRegistrationError):
        return ("the authorization server refused dynamic client registration; register a client with it and set "
                "oauth.client_id (and oauth.client_secret if it issued one), or set oauth.token_endpoint_auth_method "
                "to 'client_secret_basic' to register as a confidential client")
    if isinstance(exc, OAuthTokenError):
        status, code, described = _token_error_code(text)
        said = f" (HTTP {status}{', ' + code if code else ''}{': ' + described if described else ''})" if status else ""
        if code == "invalid_client" or status == 401:
            return _invalid_client(client, said)
        if client.grant in ("jwt_bearer", "id_jag"):
            return refused_assertion(client.grant, code, said, client.client_id)
        if code == "invalid_grant":
            return f"the authorization server rejected the authorization code{said}; authorize again"
        if code == "invalid_scope":
            return f"the authorization server refused the requested scopes{said}; check oauth.scopes"
        return f"the token request failed{said}; check the client settings and try again"
    if isinstance(exc, OAuthFlowError):
        if text.startswith(STATE_MISMATCH):
            return ("the redirect's state does not match the authorization request (a stale, foreign or forged "
                    "redirect); start the authorization again")
        if is_iss_mismatch(text):
            return ("the redirect's iss does not name the authorization server that was asked (a mix-up or forged "
                    "redirect); start the authorization again")
        if text.startswith(PRM_FETCH_FAILED):
            return (f"the server's OAuth metadata could not be fetched ({text.rpartition(': ')[2]}); the server or its "
                    "authorization server may be down; try again later")
        if text.startswith(PROTECTED_RESOURCE):
            return (f"{text}: the server's protected-resource metadata names another resource, so no token is "
                    "requested for it; check the server's url")
        return f"{text}; check the server's url and OAuth settings"
    if isinstance(exc, ValidationError):
        return (f"the authorization server sent a malformed answer ({exc.title}); check that the server's "
                "authorization server implements OAuth 2.1")
    if isinstance(exc, TimeoutError):
        return "the authorization server did not answer in time; try again later"
    if isinstance(exc, httpx2.HTTPError | OSError):
        return f"could not reach the authorization server ({type(exc).__name__}); check that it is up"
    return f"the authorization flow failed ({type(exc).__name__}); run with logging at DEBUG for details"
