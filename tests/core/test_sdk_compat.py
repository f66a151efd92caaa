"""The SDK internals mcp_litellm leans on (``_core/sdk_compat.py``), each provoked in the SDK itself.

An ``mcp`` release that renames a private method we override, drops an attribute we read, or rewords a
message we match fails the test named for it here. The SDK's own classes run (its OAuth provider against
a real OAuth-protected server, or against scripted HTTP answers; its streamable HTTP client against a
real server; its session), never ours, so what is pinned is the SDK's behaviour.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.auth.exceptions import OAuthFlowError, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.client.auth.utils import validate_authorization_response_iss
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, OAuthToken
from pydantic import AnyUrl

from mcp_litellm._core import sdk_compat as compat

if sys.version_info < (3, 11):  # pragma: no cover
    from exceptiongroup import BaseExceptionGroup
from tests.auth.oauth_server import CC_CLIENT, OAuthServer, follow
from tests.servers.fixture_server import build_server

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "compat", "version": "0"}}}
HEADERS = {"accept": "application/json, text/event-stream"}


class _Memory:
    """The SDK's ``TokenStorage`` protocol, in memory."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class _Recording(OAuthClientProvider):
    """The SDK's provider, recording each private hook mcp_litellm overrides as the SDK calls it."""

    calls: list[str]

    async def _initialize(self) -> None:
        self.calls.append("_initialize")
        await super()._initialize()

    async def _perform_authorization(self) -> httpx2.Request:
        self.calls.append("_perform_authorization")
        return await super()._perform_authorization()

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        self.calls.append("_exchange_token_authorization_code")
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        self.calls.append("_refresh_token")
        return await super()._refresh_token()

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        self.calls.append("_handle_refresh_response")
        return await super()._handle_refresh_response(response)

    def _expected_issuer(self) -> str:
        self.calls.append("_expected_issuer")
        return super()._expected_issuer()

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        self.calls.append("_auth_flow")
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return


def _provider(url: str, *, cls: type[OAuthClientProvider] = _Recording,
              state: Callable[[str | None], str | None] = lambda s: s) -> Any:
    """An SDK provider for ``url`` whose "browser" follows the auto-approving server's redirect."""
    pending: list[str] = []

    async def redirect(authorization_url: str) -> None:
        pending.append(authorization_url)

    async def callback() -> AuthorizationCodeResult:
        location = await asyncio.to_thread(follow, pending[-1])
        query = parse_qs(urlsplit(location).query)
        return AuthorizationCodeResult(code=query["code"][0], state=state(query.get("state", [None])[0]))

    metadata = OAuthClientMetadata(redirect_uris=[AnyUrl("http://127.0.0.1:9/callback")],
                                   grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                                   client_name="compat", scope="mcp", token_endpoint_auth_method="none")
    provider = cls(url, metadata, _Memory(), redirect, callback)
    provider.calls = []  # type: ignore[attr-defined]
    return provider


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[OAuthServer]:
    server = OAuthServer().start()
    try:
        yield server
    finally:
        server.stop()


# -- OAuth providers ---------------------------------------------------------------------------------------


def test_the_sdk_calls_every_oauth_hook_we_override(oauth_server):
    provider = _provider(oauth_server.url)
    checked: list[str | None] = []

    async def check(server_url: str, resource: str | None) -> None:
        checked.append(resource)

    compat.set_resource_validator(provider, check)

    async def run() -> None:
        async with httpx2.AsyncClient(auth=provider, timeout=20) as http:
            assert not compat.provider_initialized(provider)
            assert (await http.post(oauth_server.url, json=INITIALIZE, headers=HEADERS)).status_code == 200
            assert compat.provider_initialized(provider)
            provider.context.token_expiry_time = time.time() - 1  # expired: the next request refreshes first
            assert (await http.post(oauth_server.url, json=INITIALIZE, headers=HEADERS)).status_code == 200

    asyncio.run(run())
    assert set(provider.calls) == set(compat.OAUTH_PROVIDER_HOOKS), provider.calls
    assert checked == [oauth_server.url]  # our resource check replaced the SDK's


def test_the_sdk_calls_the_client_credentials_hook(oauth_server):
    called: list[str] = []

    class Recording(ClientCredentialsOAuthProvider):
        async def _exchange_token_client_credentials(self) -> httpx2.Request:
            called.append("_exchange_token_client_credentials")
            return await super()._exchange_token_client_credentials()

    provider = Recording(oauth_server.url, _Memory(), CC_CLIENT[0], CC_CLIENT[1], scope="mcp")

    async def run() -> None:
        async with httpx2.AsyncClient(auth=provider, timeout=20) as http:
            assert (await http.post(oauth_server.url, json=INITIALIZE, headers=HEADERS)).status_code == 200

    asyncio.run(run())
    assert called == list(compat.CLIENT_CREDENTIALS_HOOKS)


def test_a_wrong_state_is_the_sdks_state_mismatch_and_its_flow_error_log(oauth_server, caplog):
    caplog.set_level(logging.DEBUG, logger="mcp.client.auth.oauth2")
    provider = _provider(oauth_server.url, state=lambda state: "forged")

    async def run() -> None:
        async with httpx2.AsyncClient(auth=provider, timeout=20) as http:
            await http.post(oauth_server.url, json=INITIALIZE, headers=HEADERS)

    with pytest.raises(OAuthFlowError) as caught:
        asyncio.run(run())
    assert str(caught.value).startswith(compat.STATE_MISMATCH)
    assert any(record.msg == compat.OAUTH_FLOW_ERROR_LOG for record in caplog.records)


def _scripted(answers: Callable[[httpx2.Request], httpx2.Response]) -> BaseException:
    """The exception the SDK's flow raises against scripted HTTP answers."""
    provider = _provider("https://mcp.test/mcp")

    async def run() -> None:
        async with httpx2.AsyncClient(auth=provider, transport=httpx2.MockTransport(answers)) as http:
            await http.post("https://mcp.test/mcp", json=INITIALIZE)

    with pytest.raises(Exception) as caught:
        asyncio.run(run())
    return caught.value


def test_unfetchable_resource_metadata_is_the_sdks_prm_failure():
    def answers(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(503 if "/.well-known/" in request.url.path else 401)

    error = _scripted(answers)
    assert isinstance(error, OAuthFlowError) and str(error).startswith(compat.PRM_FETCH_FAILED)


def test_metadata_for_another_resource_is_the_sdks_resource_mismatch():
    def answers(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/.well-known/oauth-protected-resource"):
            return httpx2.Response(200, json={"resource": "https://elsewhere.test/mcp",
                                              "authorization_servers": ["https://auth.test"]})
        return httpx2.Response(401)

    error = _scripted(answers)
    assert isinstance(error, OAuthFlowError) and str(error).startswith(compat.PROTECTED_RESOURCE)
    assert "https://elsewhere.test/mcp" in str(error)


def _metadata(issuer: str, **extra: Any) -> dict[str, Any]:
    return {"issuer": issuer, "authorization_endpoint": f"{issuer}/authorize", "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register", "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"], **extra}


def test_metadata_naming_another_issuer_is_the_sdks_issuer_mismatch():
    def answers(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path.startswith("/.well-known/oauth-protected-resource"):
            return httpx2.Response(404)
        if path.startswith("/.well-known/"):  # a 2025-03-26 server: metadata at the origin, issuer under /oauth
            return httpx2.Response(200, json=_metadata("https://mcp.test/oauth"))
        return httpx2.Response(401)

    error = _scripted(answers)
    assert compat.mismatched_issuer(error) == "https://mcp.test/oauth", error
    assert compat.mismatched_issuer(OAuthFlowError("something else")) is None


def test_a_refused_token_request_is_the_sdks_token_error_text():
    def answers(request: httpx2.Request) -> httpx2.Response:
        path = request.url.path
        if path.startswith("/.well-known/oauth-protected-resource"):
            return httpx2.Response(200, json={"resource": "https://mcp.test/mcp",
                                              "authorization_servers": ["https://mcp.test"]})
        if path.startswith("/.well-known/"):
            return httpx2.Response(200, json=_metadata("https://mcp.test"))
        if path == "/register":
            return httpx2.Response(201, json={"client_id": "c1", "redirect_uris": ["http://127.0.0.1:9/callback"],
                                              "token_endpoint_auth_method": "none"})
        if path == "/authorize":
            query = parse_qs(urlsplit(str(request.url)).query)
            return httpx2.Response(302, headers={"location": f"http://127.0.0.1:9/callback?code=x&state="
                                                             f"{query['state'][0]}"})
        if path == "/token":
            return httpx2.Response(400, json={"error": "invalid_grant", "error_description": "code expired"})
        return httpx2.Response(401)

    provider = _provider("https://mcp.test/mcp")
    mock = httpx2.MockTransport(answers)

    async def callback() -> AuthorizationCodeResult:
        async with httpx2.AsyncClient(transport=mock) as browser:
            location = (await browser.get(pending[-1])).headers["location"]
        query = parse_qs(urlsplit(location).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

    pending: list[str] = []

    async def redirect(url: str) -> None:
        pending.append(url)

    provider.context.redirect_handler, provider.context.callback_handler = redirect, callback

    async def run() -> None:
        async with httpx2.AsyncClient(auth=provider, transport=mock) as http:
            await http.post("https://mcp.test/mcp", json=INITIALIZE)

    with pytest.raises(OAuthTokenError) as caught:
        asyncio.run(run())
    status, body = compat.token_error_parts(str(caught.value))
    assert status == 400 and json.loads(body)["error"] == "invalid_grant", caught.value


def test_a_wrong_iss_on_the_redirect_is_the_sdks_iss_mismatch():
    metadata = OAuthMetadata.model_validate(_metadata("https://auth.test",
                                                      authorization_response_iss_parameter_supported=True))
    for iss in ("https://evil.test", None):
        with pytest.raises(OAuthFlowError) as caught:
            validate_authorization_response_iss(iss, metadata)
        assert compat.is_iss_mismatch(str(caught.value)), caught.value
    assert not compat.is_iss_mismatch(f"{compat.ISSUER_MISMATCH}https://a != https://b")


# -- streamable HTTP and the session ------------------------------------------------------------------------


def _first_answer(answers: Callable[[httpx2.Request], httpx2.Response], *, initialize: bool) -> tuple[int, str]:
    """The error the SDK's streamable HTTP client makes of a ping answered by ``answers`` (after an
    initialize that opened a session, if ``initialize``)."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.message import SessionMessage
    from mcp_types import JSONRPCRequest

    async def run() -> tuple[int, str]:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(answers)) as http, \
                streamable_http_client("https://mcp.test/mcp", http_client=http) as (read, write):
            if initialize:
                await write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=0, method="initialize",
                                                               params=INITIALIZE["params"])))
                await read.receive()
            await write.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=1, method="ping")))
            message = await read.receive()
            error = message.message.error  # type: ignore[union-attr]
            return error.code, error.message

    return asyncio.run(run())


def test_the_sdks_stand_ins_for_http_errors_without_a_json_rpc_body():
    def answers(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        if body["method"] == "initialize":
            return httpx2.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {}},
                                   headers={"mcp-session-id": "s1"})
        return httpx2.Response(404, text="gone")  # without a session: a wrong URL; with one: it is forgotten

    found = {_first_answer(answers, initialize=False), _first_answer(answers, initialize=True),
             _first_answer(lambda request: httpx2.Response(500, text="plain"), initialize=False)}
    assert found == compat.sdk_stand_ins()


def test_a_failed_session_delete_is_the_sdks_termination_warning(caplog):
    caplog.set_level(logging.DEBUG, logger="mcp.client.streamable_http")

    def answers(request: httpx2.Request) -> httpx2.Response:
        if request.method == "DELETE":
            return httpx2.Response(500)
        body = json.loads(request.content)
        if body["method"] == "initialize":
            return httpx2.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {}},
                                   headers={"mcp-session-id": "s1"})
        return httpx2.Response(500)

    _first_answer(answers, initialize=True)  # leaving the transport DELETEs the session, which fails
    assert any(str(record.msg).startswith(compat.SESSION_TERMINATION_FAILED_LOG) for record in caplog.records)


def test_a_transport_that_ends_fails_the_pending_request_with_the_sdks_connection_closed():
    import anyio
    import mcp
    from mcp import MCPError
    from mcp.shared.message import SessionMessage
    from mcp_types import CONNECTION_CLOSED, JSONRPCResponse

    async def run() -> MCPError:
        to_client, client_reads = anyio.create_memory_object_stream[Any](8)
        client_writes, from_client = anyio.create_memory_object_stream[Any](8)

        async def server() -> None:  # answers the handshake, then goes away at the first request
            async for message in from_client:
                request = message.message
                if getattr(request, "method", None) == "initialize":
                    result = {"protocolVersion": "2025-11-25", "capabilities": {},
                              "serverInfo": {"name": "brief", "version": "0"}}
                    await to_client.send(SessionMessage(JSONRPCResponse(jsonrpc="2.0", id=request.id, result=result)))
                elif getattr(request, "id", None) is not None:
                    await to_client.aclose()
                    return

        @asynccontextmanager
        async def transport() -> AsyncIterator[Any]:
            yield client_reads, client_writes

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server)
            async with mcp.Client(transport(), mode="legacy") as client:
                with pytest.raises(MCPError) as caught:
                    await client.send_ping()
            tasks.cancel_scope.cancel()
        return caught.value

    error = asyncio.run(run())
    assert (error.code, error.message) == (CONNECTION_CLOSED, compat.CONNECTION_CLOSED_MESSAGE)


def _session_server_behind_a_relay() -> Any:
    from tests.helpers.servers import free_port, start_http_server, stop_process
    from tests.relay import CuttingRelay

    @contextmanager
    def served() -> Iterator[CuttingRelay]:
        server = Path(__file__).resolve().parent.parent / "servers" / "session_server.py"
        with CuttingRelay() as relay:
            relay.upstream = port = free_port()
            process = start_http_server([sys.executable, str(server), "streamable-http", "--port", str(port)], port)
            try:
                yield relay
            finally:
                stop_process(process)

    return served()


def test_a_cut_sse_answer_fails_only_its_request_with_the_sdks_connection_closed():
    import mcp
    from mcp import MCPError
    from mcp.client.streamable_http import streamable_http_client
    from mcp_types import CONNECTION_CLOSED

    async def run(url: str, relay: Any) -> tuple[MCPError, str]:
        async with mcp.Client(streamable_http_client(url), mode="legacy") as client:
            relay.cut("bump")
            with pytest.raises(MCPError) as caught:
                await client.call_tool("bump", {})
            after = await client.call_tool("peek", {})  # the same session goes on
        return caught.value, after.content[0].text

    with _session_server_behind_a_relay() as relay:
        error, after = asyncio.run(run(relay.url(), relay))
    assert (error.code, error.message) == (CONNECTION_CLOSED, compat.CUT_SSE_ANSWER)
    assert after == "peeked 1"


def test_the_sdks_transport_dies_of_a_cut_json_answer():
    # The SDK bug that _transports/lost_answers.py works around: when this test fails, the SDK fails the one
    # request instead (the upstream fix), and AnswerKeepingClient and the body bound's catch can go.
    import mcp
    from mcp.client.streamable_http import streamable_http_client

    async def run(url: str, relay: Any) -> None:
        async with mcp.Client(streamable_http_client(url), mode="auto") as client:  # 2026-07-28: JSON answers
            relay.cut("bump")
            await client.call_tool("bump", {})

    with _session_server_behind_a_relay() as relay, pytest.raises(BaseExceptionGroup) as caught:
        asyncio.run(run(relay.url(), relay))
    assert caught.group_contains(httpx2.RemoteProtocolError), caught.value


def test_the_session_reports_its_negotiated_version_and_sends_raw_requests():
    async def run() -> tuple[str | None, dict[str, Any]]:
        import mcp

        async with mcp.Client(build_server("raw"), mode="legacy") as client:
            session = client.session
            return compat.negotiated_version(session), await compat.send_raw_request(
                session, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})

    version, raw = asyncio.run(run())
    assert version == "2025-11-25"
    assert raw["content"][0]["text"] == "5"


def test_json_nested_past_the_parsers_limit_is_pydantics_recursion_limit():
    from mcp_litellm._transports.wire.messages import first_error

    deep = '{"jsonrpc": "2.0", "id": 1, "result": ' + "[" * 400 + "]" * 400 + "}"
    from mcp_types import jsonrpc_message_adapter

    with pytest.raises(ValueError) as caught:
        jsonrpc_message_adapter.validate_json(deep, by_name=False)
    assert compat.RECURSION_LIMIT in first_error(caught.value)


def test_every_private_sdk_method_our_providers_override_is_listed():
    from mcp_litellm._transports.oauth import provider as oauth

    def overridden(cls: type, base: type) -> set[str]:
        return {name for name in vars(cls) if name.startswith("_") and not name.startswith("__")
                and name != "_abc_impl" and callable(getattr(base, name, None))}

    assert overridden(oauth._Guarded, OAuthClientProvider) == set(compat.OAUTH_PROVIDER_HOOKS)
    assert overridden(oauth._ClientCredentials, ClientCredentialsOAuthProvider) == set(
        compat.CLIENT_CREDENTIALS_HOOKS)
    from mcp_litellm._transports.oauth.grants import AssertionGrant

    assert overridden(AssertionGrant, ClientCredentialsOAuthProvider) <= set(compat.CLIENT_CREDENTIALS_HOOKS)


def test_structured_content_against_the_output_schema_is_the_sdks_output_schema_error():
    async def run() -> BaseException | None:
        import mcp

        async with mcp.Client(build_server("schema"), mode="legacy") as client:
            await client.list_tools()  # the SDK checks results against the schemas it listed
            try:
                await client.call_tool("bad_weather", {"city": "Oslo"})
            except Exception as exc:
                return exc
        return None

    error = asyncio.run(run())
    assert error is not None and compat.is_output_schema_error(error), repr(error)
    assert not compat.is_output_schema_error(RuntimeError("something else"))


@pytest.mark.parametrize(("tool", "arguments", "feature"), [
    ("ask_model", {"question": "hi"}, "sampling"), ("ask_user", {}, "elicitation"), ("roots", {}, "roots")])
def test_a_feature_the_client_lacks_is_refused_with_the_sdks_text(tool, arguments, feature):
    """A client without the callback: the SDK's default answers ``INVALID_REQUEST`` with a fixed text, which
    fails the tool call with that refusal."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_REQUEST

    async def run() -> MCPError:
        import mcp

        async with mcp.Client(build_server("features"), mode="legacy") as client:
            try:
                await client.call_tool(tool, arguments)
            except MCPError as exc:
                return exc
        raise AssertionError("the call was not refused")

    refused = asyncio.run(run())
    assert refused.error.code == INVALID_REQUEST and compat.feature_off(refused.error.message) == feature, refused
