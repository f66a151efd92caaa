"""Elicitation (form and URL mode) against the fixture server on both protocol eras."""

from __future__ import annotations

import json
import threading
from typing import ClassVar

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.message import ServerMessageMetadata
from mcp_types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult

import mcp_litellm as ml
from mcp_litellm.handlers import ElicitationRegistry
from tests.helpers.features import GOOD, refusal, result_json


def test_form_with_every_field_kind_is_accepted(make_client, protocol):
    seen = []

    def handler(elicitation):
        seen.append(elicitation)
        return dict(GOOD)

    client = make_client("memory", protocol=protocol, elicitation=handler)
    out = result_json(client.execute_tool("elicit_form"))
    assert out == {"action": "accept", "content": GOOD}
    (elicitation,) = seen
    assert (elicitation.mode, elicitation.message, elicitation.server_name) == ("form", "Tell us about yourself",
                                                                              "fixture")
    assert set(elicitation.requested_schema["properties"]) == set(GOOD)
    assert elicitation.url is None and elicitation.id


@pytest.mark.parametrize(("change", "problem"), [
    ({"age": 200}, "age"),
    ({"email": "not an email"}, "email"),
    ({"color": "purple"}, "color"),
    ({"toppings": ["cheese", "ham", "olives"]}, "toppings"),
    ({"height": "tall"}, "height"),
    ({"name": None}, "name"),
    ({"homepage": "not a uri at all"}, "homepage"),
    ({"homepage": "ada.example/home"}, "homepage"),
])
def test_invalid_content_is_never_sent_as_accept(make_client, change, problem):
    client = make_client("memory", elicitation=lambda e: {**GOOD, **change})
    text = refusal(client, "elicit_form")
    assert "does not match the requested schema" in text
    assert problem in text


def test_uri_reference_and_date_time_formats_are_checked():
    server = MCPServer("formats")
    schema = {"type": "object", "properties": {"link": {"type": "string", "format": "uri-reference"},
                                               "when": {"type": "string", "format": "date-time"}}}

    @server.tool()
    async def when_and_where(ctx: Context) -> str:
        params = ElicitRequestFormParams(message="When and where?", requested_schema=schema)
        result = await ctx.session.send_request(ElicitRequest(params=params), ElicitResult,
                                                metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
        return json.dumps(result.content)

    answers = iter([{"link": "../notes#today", "when": "2024-01-15T10:30:00.5+02:00"},
                    {"link": "has spaces", "when": "2024-01-15T10:30:00Z"},
                    {"link": "/ok", "when": "2024-02-30T10:30:00Z"},
                    {"link": "/ok", "when": "tomorrow"}])
    client = ml.client("formats", "memory", {"server": server}, protocol="legacy", elicitation=lambda e: next(answers))
    try:
        assert json.loads(client.execute_tool("when_and_where").text)["link"] == "../notes#today"
        for problem in ("link", "when", "when"):
            text = refusal(client, "when_and_where")
            assert "does not match the requested schema" in text and problem in text
    finally:
        client.stop()


def test_fields_left_out_take_the_schemas_defaults_on_both_eras(make_client, protocol):
    left_out = {k: v for k, v in GOOD.items() if k != "subscribe"}   # "subscribe" defaults to False
    client = make_client("memory", protocol=protocol, elicitation=lambda e: dict(left_out))
    assert result_json(client.execute_tool("elicit_form")) == {"action": "accept",
                                                                "content": {**left_out, "subscribe": False}}


def test_a_form_accepted_untouched_sends_every_default_and_a_bad_default_is_refused():
    """SEP-1034, as the MCP conformance suite's elicitation-sep1034-client-defaults scenario asks it."""
    server = MCPServer("defaults")
    schema = {"type": "object", "required": [], "properties": {
        "name": {"type": "string", "default": "John Doe"}, "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5}, "verified": {"type": "boolean", "default": True},
        "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
        "note": {"type": "string"}}}
    bad = {"type": "object", "properties": {"status": {"type": "string", "enum": ["on", "off"], "default": "maybe"}}}

    @server.tool()
    async def ask(ctx: Context, broken: bool = False) -> str:
        params = ElicitRequestFormParams(message="Accept as shown?", requested_schema=bad if broken else schema)
        result = await ctx.session.send_request(ElicitRequest(params=params), ElicitResult,
                                                metadata=ServerMessageMetadata(related_request_id=ctx.request_id))
        return json.dumps({"action": result.action, "content": result.content})

    answers = iter([True, {"name": "Ada", "tags": []}, ml.handlers.decline(), True])
    client = ml.client("defaults", "memory", {"server": server}, protocol="legacy",
                       elicitation=lambda e: next(answers))
    try:
        defaults = {"name": "John Doe", "age": 30, "score": 95.5, "verified": True, "status": "active", "tags": ["a"]}
        assert json.loads(client.execute_tool("ask").text) == {"action": "accept", "content": defaults}
        assert json.loads(client.execute_tool("ask").text)["content"] == {**defaults, "name": "Ada", "tags": []}
        assert json.loads(client.execute_tool("ask").text) == {"action": "decline", "content": None}
        text = refusal(client, "ask", {"broken": True})
        assert "does not match the requested schema" in text and "status" in text
    finally:
        client.stop()


def test_missing_required_field_is_refused_on_both_eras(make_client, protocol):
    client = make_client("memory", protocol=protocol, elicitation=lambda e: {"name": "Ada"})
    assert "'email' is a required property" in refusal(client, "elicit_form")
    assert client.is_alive()


def test_decline_cancel_and_shorthands(make_client, protocol):
    answers = iter([ml.handlers.decline("no thanks"), ml.handlers.cancel(), False, None, "not now"])
    client = make_client("memory", protocol=protocol, elicitation=lambda e: next(answers))
    actions = [result_json(client.execute_tool("elicit_form"))["action"] for _ in range(5)]
    assert actions == ["decline", "cancel", "decline", "cancel", "decline"]


def test_plain_functions_may_return_the_wire_shape_or_an_elicit_result(make_client, protocol):
    answers = iter([{"action": "decline"}, {"action": "cancel"}, {"action": "accept", "content": GOOD},
                    ElicitResult(action="decline"), ElicitResult(action="accept", content=GOOD)])
    client = make_client("memory", protocol=protocol, elicitation=lambda e: next(answers))
    outs = [result_json(client.execute_tool("elicit_form")) for _ in range(5)]
    assert [o["action"] for o in outs] == ["decline", "cancel", "accept", "decline", "accept"]
    assert outs[2]["content"]["name"] == "Ada" and outs[4]["content"]["email"] == "ada@example.com"


def test_url_mode_gets_url_and_id(make_client, protocol):
    seen = []

    async def handler(elicitation):
        seen.append((elicitation.mode, elicitation.url, elicitation.id, elicitation.message))
        return ml.handlers.accept({"ignored": "URL mode sends no content"})

    client = make_client("memory", protocol=protocol, elicitation=handler)
    out = result_json(client.execute_tool("elicit_url", {"url": "https://auth.example/login"}))
    assert out == {"action": "accept", "content": None}
    mode, url, eid, message = seen[0]
    assert (mode, url, message) == ("url", "https://auth.example/login", "Please sign in")
    if protocol == "legacy":
        assert eid == "elicit-42"  # the server's id (2026-07-28 removed it: a generated one then)
    assert eid


def test_handler_exception_becomes_an_error_and_the_session_survives(make_client, protocol):
    def handler(elicitation):
        raise ValueError("UI crashed")

    client = make_client("memory", protocol=protocol, elicitation=handler)
    assert "UI crashed" in refusal(client, "elicit_form")
    assert client.execute_tool("echo", {"message": "still here"}).text == "still here"


def complete_later(action, *args, **kwargs):
    """Resolve the next pending elicitation from another thread, once it is pending."""
    def run():
        while not ElicitationRegistry.pending():
            threading.Event().wait(0.01)
        action(ElicitationRegistry.pending()[0], *args, **kwargs)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


class Deferred(ml.handlers.ElicitationHandler):
    default_options: ClassVar[dict] = {"timeout": 30}
    ids: ClassVar[list[str]] = []

    def execute(self):
        self.ids.append(self.elicitation.id)
        return self.defer()


def test_deferred_elicitation_completed_from_another_thread(make_client, protocol):
    Deferred.ids = []
    client = make_client("memory", protocol=protocol, start=False).on_elicitation(Deferred)
    client.start()
    thread = complete_later(ElicitationRegistry.complete, response=dict(GOOD, age=40))
    out = result_json(client.execute_tool("elicit_form"))
    thread.join(5)
    assert out["action"] == "accept" and out["content"]["age"] == 40
    assert Deferred.ids and ElicitationRegistry.pending() == []

    complete_later(ElicitationRegistry.cancel)
    assert result_json(client.execute_tool("elicit_form"))["action"] == "cancel"
    complete_later(ElicitationRegistry.complete, response={"name": "x"})  # invalid: never sent as accept
    assert "does not match" in refusal(client, "elicit_form")


def test_deferred_elicitation_times_out_as_cancel(make_client):
    client = make_client("memory", elicitation=lambda e: ml.handlers.defer(0.2))
    assert result_json(client.execute_tool("elicit_form"))["action"] == "cancel"
    assert ElicitationRegistry.pending() == []
    assert ElicitationRegistry.complete("no-such-id", response={}) is False


class Polite(ml.handlers.ElicitationHandler):
    default_options: ClassVar[dict] = {"allowed_servers": ["fixture"]}

    @ml.handlers.guard
    async def known_server(self):
        return self.client_name in self.options["allowed_servers"] or f"unknown server {self.client_name}"

    def execute(self):
        return self.accept(dict(GOOD))


def test_handler_class_guard_declines(make_client, protocol):
    trusted = make_client("memory", protocol=protocol, elicitation=Polite)
    assert result_json(trusted.execute_tool("elicit_form"))["action"] == "accept"
    other = make_client("memory", protocol=protocol, name="other", start=False)
    other.on_elicitation(Polite, allowed_servers=["somewhere-else"]).start()
    assert result_json(other.execute_tool("elicit_form"))["action"] == "decline"


def test_elicitation_is_off_by_default_and_refused(make_client, protocol):
    client = make_client("memory", protocol=protocol)
    assert "not supported" in refusal(client, "elicit_form").lower()
    client.on_elicitation(lambda e: dict(GOOD))  # re-initialises the running session to advertise it
    assert result_json(client.execute_tool("elicit_form"))["action"] == "accept"


def test_enabled_without_a_handler_is_refused_clearly(make_client):
    client = make_client("memory", elicitation=True)
    assert "no elicitation handler is registered" in refusal(client, "elicit_form")


def test_elicitation_complete_notification_reaches_the_handler_and_a_deferred_url_request():
    """notifications/elicitation/complete (2025-11-25): a deferred URL elicitation is completed by it, and a
    handler class that defines on_complete hears about it."""
    server = MCPServer("consent")

    @server.tool(description="Ask the user to open a URL, then say the out-of-band flow completed.")
    async def consent(ctx: Context) -> str:
        request = ElicitRequest(params=ElicitRequestURLParams(mode="url", message="Open it", url="https://x.example/c",
                                                              elicitation_id="consent-7"))

        async def finish_later() -> None:
            import anyio

            await anyio.sleep(0.3)
            await ctx.session.send_elicit_complete("consent-7")

        import anyio

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(finish_later)
            result = await ctx.session.send_request(request, ElicitResult)
        return json.dumps({"action": result.action})

    completed: list[str] = []

    class Browser(ml.handlers.ElicitationHandler):
        def execute(self) -> ml.handlers.Decision:
            return self.defer(timeout=10)  # wait for the server to say the user finished

        @classmethod
        def on_complete(cls, elicitation_id: str) -> None:
            completed.append(elicitation_id)

    client = ml.client("consent", "memory", {"server": server}, protocol="legacy", elicitation=Browser)
    try:
        out = result_json(client.execute_tool("consent"))
        assert out == {"action": "accept"}, "the completion notification accepted the deferred URL request"
        assert completed == ["consent-7"]
    finally:
        client.stop()
