"""Every place mcp_litellm leans on the ``mcp`` SDK's internals, in one module.

The SDK leaves a few things without a public way: OAuth customisation goes through private methods of
its providers, a task-augmented ``tools/call`` needs the session's dispatcher, and some failures are
told apart only by their text. Each such dependency is named here, and each has a test in
``tests/core/test_sdk_compat.py`` that provokes the SDK's real behaviour, so an ``mcp`` release that
renames a method or rewords a message fails a test named for it instead of changing our behaviour
silently. Nothing else in the package reads an SDK object's private attribute or matches an SDK message.
"""

from __future__ import annotations

from typing import Any

# -- OAuth providers (mcp.client.auth) -----------------------------------------------------------------

OAUTH_PROVIDER_HOOKS = (
    "_initialize",  # loads tokens and client info from storage: we add expiry, refresh-early, settings
    "_perform_authorization",  # starts the authorization-code grant: we set the scopes the user asked for
    "_exchange_token_authorization_code",  # builds the code->token request: we settle the client auth method
    "_refresh_token",  # builds the refresh request: likewise
    "_handle_refresh_response",  # reads the refresh answer: we note a rejected refresh token
    "_expected_issuer",  # the issuer the authorization server's metadata must name (2025-03-26 servers)
    "_auth_flow",  # the httpx auth generator: we record failures for the request instead of raising
)
"""Private methods of ``OAuthClientProvider`` that ``_transports.oauth`` overrides (calling ``super()``)."""

CLIENT_CREDENTIALS_HOOKS = ("_exchange_token_client_credentials",)
"""Private methods of ``ClientCredentialsOAuthProvider`` that ``_transports.oauth`` overrides."""


def provider_initialized(provider: Any) -> bool:
    """Whether the SDK's provider has loaded its stored tokens and client info (``_initialized``)."""
    return bool(provider._initialized)


def set_resource_validator(provider: Any, check: Any) -> None:
    """Replace the provider's protected-resource check (``_validate_resource_url_callback``); the SDK's
    client-credentials providers take no such argument."""
    provider._validate_resource_url_callback = check


OAUTH_FLOW_ERROR_LOG = "OAuth flow error"
"""The message the SDK logs (at ERROR, with a traceback) for every failed OAuth flow."""

ISSUER_MISMATCH = "Authorization server metadata issuer mismatch: "
"""Start of the ``OAuthFlowError`` for metadata naming another issuer: ``<lead><found> != <expected>``."""


def mismatched_issuer(exc: BaseException) -> str | None:
    """The issuer the authorization server's metadata named, from the SDK's issuer-mismatch error."""
    from mcp.client.auth.exceptions import OAuthFlowError

    text = str(exc)
    if not isinstance(exc, OAuthFlowError) or not text.startswith(ISSUER_MISMATCH):
        return None
    return text[len(ISSUER_MISMATCH):].split(" != ", 1)[0].strip()


STATE_MISMATCH = "State parameter mismatch"
"""Start of the ``OAuthFlowError`` for a redirect whose ``state`` is not the one sent."""

PRM_FETCH_FAILED = "Protected resource metadata request failed"
"""Start of the ``OAuthFlowError`` for protected-resource metadata that could not be fetched (``...: HTTP 503``)."""

PROTECTED_RESOURCE = "Protected resource"
"""Start of the ``OAuthFlowError`` for protected-resource metadata naming another resource
(``Protected resource <found> does not match expected <url>``); our SSE check raises it in the same words."""


def is_iss_mismatch(text: str) -> bool:
    """Whether an ``OAuthFlowError``'s text is about the redirect's ``iss`` (mismatched or missing)."""
    return "iss" in text and ("mismatch" in text or "missing iss" in text) and "metadata" not in text


def token_error_parts(text: str) -> tuple[int | None, str]:
    """The HTTP status and the body in the SDK's ``Token exchange failed (400)<note>: <body>``."""
    head, _, body = text.partition(":")
    digits = "".join(ch for ch in head.split("(")[-1] if ch.isdigit())
    return (int(digits) if digits else None), body.strip()


# -- streamable HTTP (mcp.client.streamable_http) ---------------------------------------------------------

SESSION_TERMINATION_FAILED_LOG = "Session termination failed:"
"""Start of the warning the SDK logs when the DELETE that closes a session fails."""


def sdk_stand_ins() -> frozenset[tuple[int, str]]:
    """The JSON-RPC errors the streamable HTTP client makes up for an HTTP error without a JSON-RPC body:
    404 without a session, 404 with one, any other status."""
    from mcp_types import INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND

    return frozenset({(METHOD_NOT_FOUND, "Not Found"), (INVALID_REQUEST, "Session terminated"),
                      (INTERNAL_ERROR, "Server returned an error response")})


CONNECTION_CLOSED_MESSAGE = "Connection closed"
"""The message of the SDK's ``CONNECTION_CLOSED`` error when it has nothing more to say."""

CUT_SSE_ANSWER = "SSE stream ended without a response"
"""The message of the ``CONNECTION_CLOSED`` error with which the SDK's streamable HTTP client fails the one
request whose event-stream answer ended before the result and could not be resumed; the session goes on.
Any ``CONNECTION_CLOSED`` message but ``CONNECTION_CLOSED_MESSAGE`` is such a one-request failure
(``failures.AnswerLost``). A cut JSON answer, or a POST whose connection drops before the answer, ends the
SDK's transport instead (mcp 2.3.0): ``_transports.lost_answers`` answers those in the same way."""

# -- the session (mcp.client.session) -------------------------------------------------------------------------


def negotiated_version(session: object) -> str | None:
    """The protocol version a session speaks: ``protocol_version`` where the SDK has it, else the
    private ``_negotiated_version`` the handshake sets."""
    version = getattr(session, "protocol_version", None) or getattr(session, "_negotiated_version", None)
    return version if isinstance(version, str) else None


async def send_raw_request(session: Any, method: str, params: dict[str, Any] | None,
                           progress: Any = None) -> dict[str, Any]:
    """Send a request and return its raw result, unvalidated: one level below ``send_request``, which
    checks a ``tools/call`` answer against ``CallToolResult`` (a task-augmented call is answered with a
    task). ``_stamp`` adds what every request carries (protocol headers, ``_meta``); the dispatcher sends."""
    data: dict[str, Any] = {"method": method, "params": params}
    options: dict[str, Any] = {}
    session._stamp(data, options)
    if progress is not None:
        options["on_progress"] = progress
    raw: dict[str, Any] = await session._dispatcher.send_raw_request(method, data.get("params"), options)
    return raw


# -- tool calls (mcp.client.client / session) ----------------------------------------------------------------

OUTPUT_SCHEMA_ERRORS = ("Invalid structured content", "has an output schema but did not return")
"""How the SDK's ``RuntimeError`` begins when a tool's result does not match its output schema."""


def is_output_schema_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the SDK's output-schema check failing on a tool's result (a ``RuntimeError`` told
    apart only by its text)."""
    text = str(exc)
    return isinstance(exc, RuntimeError) and (text.startswith(OUTPUT_SCHEMA_ERRORS) or "output schema" in text)


FEATURE_OFF = {"Sampling not supported": "sampling", "Elicitation not supported": "elicitation",
               "List roots not supported": "roots"}
"""What the SDK's default callbacks answer (``INVALID_REQUEST``) when a server asks for a client feature the
client did not enable, and which feature that is."""


def feature_off(message: object) -> str | None:
    """The client feature (``"sampling"``, ``"elicitation"``, ``"roots"``) an SDK refusal names, else ``None``."""
    return FEATURE_OFF.get(message.strip()) if isinstance(message, str) else None


# -- pydantic, as the SDK's message parsing uses it ---------------------------------------------------------

RECURSION_LIMIT = "recursion limit"
"""In pydantic-core's error for JSON nested past its parser's limit (about 200 levels)."""

__all__ = [
    "CLIENT_CREDENTIALS_HOOKS",
    "CONNECTION_CLOSED_MESSAGE",
    "CUT_SSE_ANSWER",
    "FEATURE_OFF",
    "ISSUER_MISMATCH",
    "OAUTH_FLOW_ERROR_LOG",
    "OAUTH_PROVIDER_HOOKS",
    "OUTPUT_SCHEMA_ERRORS",
    "PRM_FETCH_FAILED",
    "PROTECTED_RESOURCE",
    "RECURSION_LIMIT",
    "SESSION_TERMINATION_FAILED_LOG",
    "STATE_MISMATCH",
    "feature_off",
    "is_iss_mismatch",
    "is_output_schema_error",
    "mismatched_issuer",
    "negotiated_version",
    "provider_initialized",
    "sdk_stand_ins",
    "send_raw_request",
    "set_resource_validator",
    "token_error_parts",
]
