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
ENTERPRISE = "auth/enterprise-managed-authorization"
WORKLOAD = "auth/wif-jwt-bearer"
DPOP = ("auth/dpop", "auth/dpop-nonce")

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


def discovered_issuer(url: str) -> str:
    """The issuer of the MCP server's authorization server, from its protected resource metadata: what a user
    with a client secret or key configures as ``oauth.issuer`` (credentials go to no other origin)."""
    parts = urllib.parse.urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    resource = _get_json(f"{origin}/.well-known/oauth-protected-resource{parts.path}")
    server = str(resource["authorization_servers"][0]).rstrip("/")
    return str(_get_json(f"{server}/.well-known/oauth-authorization-server")["issuer"])


def server_config(scenario: str, url: str, context: Mapping[str, Any]) -> dict[str, Any]:
    """The ``streamable`` transport's config for ``scenario``: the URL, and for ``auth/*`` the OAuth settings."""
    config: dict[str, Any] = {"url": url}
    if not scenario.startswith("auth/"):
        return config
    oauth: dict[str, Any] = {"storage": "memory"}
    if scenario == ENTERPRISE:  # SEP-990: the user's ID token, exchanged at the IdP for an ID-JAG
        oauth.update(grant="id_jag", id_token=context["idp_id_token"], idp_token_endpoint=context["idp_token_endpoint"],
                     idp_client_id=context["idp_client_id"], client_id=context["client_id"],
                     client_secret=context["client_secret"])
    elif scenario == WORKLOAD:  # SEP-1933: the workload's own JWT
        oauth.update(grant="jwt_bearer", assertion=context["valid_jwt"], client_id=context["client_id"])
    elif scenario == CLIENT_CREDENTIALS:
        oauth.update(grant="client_credentials", client_id=context["client_id"], client_secret=context["client_secret"])
    elif scenario == PRIVATE_KEY_JWT:
        oauth.update(grant="private_key_jwt", client_id=context["client_id"], private_key=context["private_key_pem"])
        if context.get("signing_algorithm"):
            oauth["signing_algorithm"] = context["signing_algorithm"]
    else:
        oauth.update(authorize=authorize, client_metadata_url=CLIENT_METADATA_URL)
        if "client_id" in context:  # auth/pre-registration
            oauth.update(client_id=context["client_id"], client_secret=context["client_secret"])
    if scenario in DPOP:  # SEP-1932: tokens bound to a key of the client's, a proof on every request
        oauth["dpop"] = True
    if "client_secret" in oauth or "private_key" in oauth or oauth.get("grant") in ("id_jag", "jwt_bearer"):
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
