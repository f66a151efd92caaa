"""An MCP conformance client written on mcp_litellm's public API only.

The conformance suite (npm ``@modelcontextprotocol/conformance``) starts it once per client scenario::

    python tests/conformance/client.py <server url>

with the scenario's name in ``MCP_CONFORMANCE_SCENARIO`` and, for scenarios that come with credentials,
a JSON object in ``MCP_CONFORMANCE_CONTEXT``. It connects over streamable HTTP, lists the tools and
calls one, the way a user's program would; what each scenario checks happens on the suite's side
(the handshake, discovery order, scopes, token endpoint authentication, ...). It exits 0 when the run
completed and 1 when the library raised (some auth scenarios expect the client to refuse).

``tests/conformance/test_conformance.py`` runs the suite against it; see docs/guides/conformance.md.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any

import mcp_litellm as ml

# The suite checks that a client with a Client ID Metadata Document uses this exact URL (auth/basic-cimd).
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"

# Scenarios whose context carries credentials for a grant other than the authorization code.
CLIENT_CREDENTIALS = "auth/client-credentials-basic"
PRIVATE_KEY_JWT = "auth/client-credentials-jwt"
CROSS_APP_ACCESS = "auth/cross-app-access-complete-flow"

HTTP_TIMEOUT = 10.0


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # hand the 3xx back to the caller instead of following it


_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def authorize(authorization_url: str) -> str:
    """Stand in for the user's browser: the suite's authorization server approves at once, so one GET
    of the authorization URL, not following the redirect, yields the URL the browser would land on."""
    try:
        with _opener.open(authorization_url, timeout=HTTP_TIMEOUT) as response:
            status = response.status
    except urllib.error.HTTPError as redirect:
        location = redirect.headers.get("Location")
        if 300 <= redirect.code < 400 and location:
            return urllib.parse.urljoin(authorization_url, location)
        status = redirect.code
    raise RuntimeError(f"the authorization endpoint answered HTTP {status} instead of a redirect")


def _get_json(url: str) -> dict[str, Any]:
    with _opener.open(url, timeout=HTTP_TIMEOUT) as response:
        data = json.load(response)
    if not isinstance(data, dict):
        raise RuntimeError(f"{url} did not answer with a JSON object")
    return data


def _post_form(url: str, form: Mapping[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(), method="POST")
    with _opener.open(request, timeout=HTTP_TIMEOUT) as response:
        data = json.load(response)
    if not isinstance(data, dict):
        raise RuntimeError(f"{url} did not answer with a JSON object")
    return data


def cross_app_access(url: str, context: Mapping[str, str]) -> Any:
    """SEP-990 (Enterprise-Managed Authorization) through the ``auth`` key, which takes any ``httpx2.Auth``:
    the SDK's ``IdentityAssertionOAuthProvider``, fed an ID-JAG that the enterprise IdP issues for the
    user's ID token (RFC 8693 token exchange). The provider needs the authorization server's issuer up
    front, so discover it from the protected resource metadata first."""
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider


    issuer = discovered_issuer(url)

    async def id_jag(audience: str, resource_url: str) -> str:
        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "subject_token": context["idp_id_token"],
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "audience": audience,
            "resource": resource_url,
            "client_id": context["idp_client_id"],
        }
        answer = await asyncio.to_thread(_post_form, context["idp_token_endpoint"], form)
        return str(answer["access_token"])

    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=_MemoryStorage(),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        issuer=issuer,
        assertion_provider=id_jag,
        token_endpoint_auth_method="client_secret_basic",
    )


def discovered_issuer(url: str) -> str:
    """The issuer of the MCP server's authorization server, from its protected resource metadata: what a user
    with a client secret or key configures as ``oauth.issuer`` (credentials go to no other origin)."""
    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    resource = _get_json(f"{origin}/.well-known/oauth-protected-resource{parts.path}")
    server = str(resource["authorization_servers"][0]).rstrip("/")
    return str(_get_json(f"{server}/.well-known/oauth-authorization-server")["issuer"])


class _MemoryStorage:
    """The SDK's ``TokenStorage`` protocol, in memory (for the ``auth`` provider above)."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client_info: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client_info

    async def set_client_info(self, client_info: Any) -> None:
        self.client_info = client_info


def server_config(scenario: str, url: str, context: Mapping[str, str]) -> dict[str, Any]:
    """The ``streamable`` transport's config for ``scenario``: the URL, and for ``auth/*`` the OAuth settings."""
    config: dict[str, Any] = {"url": url}
    if not scenario.startswith("auth/"):
        return config
    if scenario == CROSS_APP_ACCESS:
        config["auth"] = cross_app_access(url, context)
        return config
    oauth: dict[str, Any] = {"storage": "memory"}
    if scenario == CLIENT_CREDENTIALS:
        oauth.update(grant="client_credentials", client_id=context["client_id"], client_secret=context["client_secret"])
    elif scenario == PRIVATE_KEY_JWT:
        oauth.update(grant="private_key_jwt", client_id=context["client_id"], private_key=context["private_key_pem"])
        if context.get("signing_algorithm"):
            oauth["signing_algorithm"] = context["signing_algorithm"]
    else:
        oauth.update(authorize=authorize, client_metadata_url=CLIENT_METADATA_URL)
        if "client_id" in context:  # auth/pre-registration
            oauth.update(client_id=context["client_id"], client_secret=context["client_secret"])
    if "client_secret" in oauth or "private_key" in oauth:
        oauth["issuer"] = discovered_issuer(url)
    config["oauth"] = oauth
    return config


def accept_as_offered(elicitation: ml.handlers.Elicitation) -> bool:
    """The user accepts a form without touching a field: whatever the schema offers as defaults stands
    (the suite checks that the defaults reach the server, SEP-1034)."""
    return True


def run(scenario: str, url: str, context: Mapping[str, Any]) -> None:
    """Connect as a user's program would, then make the calls the scenario asks for: those its context lists
    (``toolCalls``), else every tool the server offers (``add_numbers`` with two numbers; ``json_schema_echo``
    with the input schema of the other tool, as the client received it), each once."""
    config = server_config(scenario, url, context)
    with ml.client("conformance", "streamable", config, elicitation=accept_as_offered) as client:
        if client.capabilities.tools is None:  # the initialize scenario's server offers nothing
            return
        tools = client.tools()
        calls = context.get("toolCalls")
        if isinstance(calls, list):
            for call in calls:
                client.execute_tool(call["name"], call.get("arguments") or {})
            return
        others = [tool for tool in tools if tool.name != "json_schema_echo"]
        for tool in others:
            arguments = {"a": 5, "b": 3} if tool.name == "add_numbers" else {}
            result = client.execute_tool(tool.name, arguments)
            if result.is_error and tool.name == "add_numbers":
                raise RuntimeError(f"tool {result.tool_name!r} answered an error: {result.text}")
        if len(others) < len(tools) and others:
            client.execute_tool("json_schema_echo", {"schema": others[0].input_schema})


def main(argv: list[str]) -> int:
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(argv) < 2 or not scenario:
        print("usage: MCP_CONFORMANCE_SCENARIO=<scenario> [MCP_CONFORMANCE_CONTEXT=<json>] "
              "python client.py <server url>", file=sys.stderr)
        return 2
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
        if not isinstance(context, dict):
            raise ValueError("MCP_CONFORMANCE_CONTEXT must hold a JSON object")
        run(scenario, argv[-1], context)
    except Exception as error:  # the suite reads the exit code; say why on stderr (KeyError: a missing credential)
        print(f"conformance client, scenario {scenario}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
