"""Approval handlers receive the call's context as an argument (issue 33): ``self.context`` of a
``HumanInTheLoopHandler``, its ``code_run``, and the code-mode rule for read-only tools read from it."""

from __future__ import annotations

import asyncio
import warnings
from typing import ClassVar

import pytest

import mcp_litellm as ml
from mcp_litellm._client.primitives.toolset import CallContext
from tests.servers.notes_server import notes_server

RUN = ml.CodeRun(id="r1", tool_call_id="call_run_code", code="await add(a=1, b=2)")


class Records(ml.handlers.HumanInTheLoopHandler):
    seen: ClassVar[list[tuple[str, ml.CodeRun | None, ml.CodeRun | None]]] = []

    def execute(self):
        self.seen.append((self.context.origin, self.context.code_run, self.code_run))
        return self.approve()


def test_code_mode_context_reaches_the_approval_handler_as_an_argument(make_client):
    client = make_client("memory", human_in_the_loop=Records)
    Records.seen = []

    async def main() -> None:
        await client.call_tool("add", {"a": 1, "b": 2}, CallContext(origin="code", code_run=RUN))
        await client.aexecute_tool("add", {"a": 1, "b": 2})

    asyncio.run(main())
    assert Records.seen == [("code", RUN, RUN), ("user", None, None)]


def test_read_only_tools_of_a_code_run_skip_the_approval_by_the_context():
    asked: list[str] = []

    def approve(tool_name: str, parameters: dict) -> bool:
        asked.append(tool_name)
        return True

    client = ml.client("notes", "memory", {"server": notes_server()}, human_in_the_loop=approve)
    try:
        lenient = ml.CodeRun(id="r2", tool_call_id="c2", code="", read_only_without_approval=True)
        ctx = CallContext(origin="code", code_run=lenient)
        assert not asyncio.run(client.call_tool("read_note", {"key": "a"}, ctx)).is_error
        assert asked == []
        asyncio.run(client.call_tool("read_note", {"key": "a"}, CallContext(origin="model")))
        assert asked == ["read_note"]
    finally:
        client.stop()


def test_code_run_current_is_deprecated_and_answers_only_inside_the_handler(make_client):
    answers: list[ml.CodeRun | None] = []

    def approve(tool_name: str, parameters: dict) -> bool:
        with pytest.warns(DeprecationWarning, match="use context.code_run"):
            answers.append(ml.CodeRun.current())
        return True

    client = make_client("memory", human_in_the_loop=approve)
    asyncio.run(client.call_tool("add", {"a": 1, "b": 2}, CallContext(origin="code", code_run=RUN)))
    assert answers == [RUN]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert ml.CodeRun.current() is None  # outside user code it answers nothing
