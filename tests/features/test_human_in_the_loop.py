"""Human in the loop: approving every tool call of a client."""

from __future__ import annotations

import threading
from typing import ClassVar

import pytest

import mcp_litellm as ml
from mcp_litellm.handlers import HumanInTheLoopRegistry


def test_plain_function_approves_and_denies(make_client):
    calls = []

    def approve_small(tool_name, parameters):
        calls.append((tool_name, parameters))
        return parameters.get("a", 0) < 100

    client = make_client("memory", human_in_the_loop=approve_small)
    assert client.execute_tool("add", {"a": 1, "b": 2}).text == "3"
    denied = client.execute_tool("add", {"a": 500, "b": 2})
    assert denied.is_error
    assert denied.text == "Tool call was denied: denied by the user"
    assert calls == [("add", {"a": 1, "b": 2}), ("add", {"a": 500, "b": 2})]


def test_denied_call_never_reaches_the_server(make_client):
    client = make_client("stdio", human_in_the_loop=lambda name, params: "crashing is not allowed")
    result = client.execute_tool("crash")
    assert result.text == "Tool call was denied: crashing is not allowed"
    assert client.is_alive() and client.ping()  # the server would have exited had the call reached it


def test_the_on_human_in_the_loop_keyword_is_a_deprecated_spelling(make_client):
    with pytest.warns(DeprecationWarning, match=r"ml.client\(on_human_in_the_loop=...\) is deprecated; "
                                                 r"write ml.client\(human_in_the_loop=...\)") as seen:
        client = make_client("memory", start=False, on_human_in_the_loop=lambda name, params: "no")
    assert "mcp_litellm/" not in seen[0].filename  # points at the caller, not into the library
    assert client.approval_handler is not None
    with pytest.warns(DeprecationWarning, match=r"ml.configure\(on_human_in_the_loop=...\) is deprecated"):
        ml.configure(on_human_in_the_loop=lambda name, params: True)
    try:
        assert ml.config.human_in_the_loop is not None
        with pytest.raises(ml.ConfigError, match="not both"):
            ml.configure(human_in_the_loop=None, on_human_in_the_loop=None)
    finally:
        ml.config.reset()


class Guarded(ml.handlers.HumanInTheLoopHandler):
    seen: ClassVar[list[tuple[str, dict, bool, str]]] = []

    @ml.handlers.guard
    def not_destructive(self):
        return not self.annotations.destructive_hint or self.tool_name in self.options["trusted"] or "destructive"

    async def execute(self):
        self.seen.append((self.tool_name, self.parameters, self.annotations.destructive_hint, self.approval_id))
        return self.approve()


def test_handler_class_sees_annotations_and_guards(make_client):
    Guarded.seen = []
    client = make_client("memory", start=False).on_human_in_the_loop(Guarded, trusted=["echo"])
    client.start()
    assert client.execute_tool("echo", {"message": "hi"}).text == "hi"
    assert client.execute_tool("add", {"a": 1, "b": 1}).text == "Tool call was denied: destructive"
    (name, params, destructive, approval_id), = Guarded.seen
    assert (name, params, destructive) == ("echo", {"message": "hi"}, True) and approval_id


class Later(ml.handlers.HumanInTheLoopHandler):
    default_options: ClassVar[dict] = {"timeout": 30}
    ids: ClassVar[list[str]] = []

    def execute(self):
        self.ids.append(self.approval_id)
        return self.defer()


def decide_later(decide, **kwargs):
    def run():
        while not HumanInTheLoopRegistry.pending():
            threading.Event().wait(0.01)
        decide(HumanInTheLoopRegistry.pending()[0], **kwargs)

    threading.Thread(target=run, daemon=True).start()


def test_deferred_approval_from_another_thread(make_client):
    Later.ids = []
    client = make_client("memory", human_in_the_loop=Later)
    decide_later(HumanInTheLoopRegistry.approve)
    assert client.execute_tool("add", {"a": 2, "b": 3}).text == "5"
    decide_later(HumanInTheLoopRegistry.deny, reason="the boss said no")
    assert client.execute_tool("add", {"a": 2, "b": 3}).text == "Tool call was denied: the boss said no"
    assert len(Later.ids) == 2 and HumanInTheLoopRegistry.pending() == []
    assert HumanInTheLoopRegistry.approve(Later.ids[0]) is False  # already decided


async def test_deferred_approval_times_out_as_denied_in_async_code(make_client):
    client = make_client("memory", human_in_the_loop=lambda name, params: ml.handlers.defer(0.2))
    result = await client.aexecute_tool("add", {"a": 1, "b": 1})
    assert result.text == "Tool call was denied: no decision was made within 0.2s"


@pytest.mark.parametrize(("outcome", "expected"), [
    (None, "the approval handler returned no decision"),
    (ml.handlers.deny("nope"), "nope"),
    (ml.handlers.deny(), "denied by the user"),
    (False, "denied by the user"),
    ("", "denied by the user"),
])
def test_fail_closed_outcomes(make_client, outcome, expected):
    client = make_client("memory", human_in_the_loop=lambda name, params: outcome)
    assert client.execute_tool("echo", {"message": "x"}).text == f"Tool call was denied: {expected}"


def test_failing_handler_denies_and_removal(make_client):
    def broken(name, params):
        raise KeyError("lost")

    client = make_client("memory", human_in_the_loop=broken)
    assert "the approval handler failed" in client.execute_tool("echo", {"message": "x"}).text
    client.on_human_in_the_loop(None)
    assert client.execute_tool("echo", {"message": "x"}).text == "x"


def test_tool_execute_goes_through_approval_and_handler_may_call_client(make_client):
    def approve(name, params):
        return client.execute_tool("echo", {"message": "nested"}).text == "nested" if name == "add" else True

    client = make_client("stdio", human_in_the_loop=approve)
    assert client.tool("add").execute(a=4, b=5).text == "9"
