"""A local function tool gets the model's arguments validated and converted by pydantic (lax mode, as FastAPI
does), from the same model of its parameters that gave the tool's schema; arguments that do not fit reach the
model as an error tool message naming them, and the function is not called. The model is scripted at the HTTP
level, so every case runs through a real chat turn."""

from __future__ import annotations

import datetime
from typing import Any, Literal

from pydantic import BaseModel

from tests.helpers.chat import assert_history_valid, new_chat
from tests.scripted_llm.openai import Turn


class Point(BaseModel):
    x: int
    y: int = 0


def make_tools(calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    def repeat(word: str, n: int, sep: str = "") -> str:
        """Repeat a word n times."""
        calls.append(("repeat", {"word": word, "n": n, "sep": sep}))
        return sep.join([word] * n)

    async def paint(color: Literal["red", "green"]) -> str:
        """Paint in one colour."""
        calls.append(("paint", {"color": color}))
        return f"painted {color}"

    def weekday(day: datetime.date) -> str:
        """The weekday of a date."""
        calls.append(("weekday", {"day": day}))
        return day.strftime("%A")

    async def norm(point: Point) -> str:
        """The squared length of a point."""
        calls.append(("norm", {"point": point}))
        return str(point.x ** 2 + point.y ** 2)

    return [repeat, paint, weekday, norm]


def test_arguments_are_converted_to_the_parameters_types(llm):
    calls: list[tuple[str, dict[str, Any]]] = []
    llm.then(Turn(tool_calls=[("c1", "repeat", {"word": "ab", "n": "3"}),
                              ("c2", "weekday", {"day": "2026-11-28"}),
                              ("c3", "norm", {"point": {"x": "3", "y": 4}}),
                              ("c4", "paint", {"color": "green"})]),
             Turn(content="done"))
    chat = new_chat().with_tools(*make_tools(calls))
    assert chat.ask("go").content == "done"
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    assert answers == {"c1": "ababab", "c2": "Saturday", "c3": "25", "c4": "painted green"}
    by_tool = dict(calls)
    assert by_tool["repeat"] == {"word": "ab", "n": 3, "sep": ""} and type(by_tool["repeat"]["n"]) is int
    assert type(by_tool["weekday"]["day"]) is datetime.date
    assert by_tool["norm"]["point"] == Point(x=3, y=4) and isinstance(by_tool["norm"]["point"], Point)
    assert_history_valid(chat.messages)


def test_arguments_that_do_not_fit_are_an_error_for_the_model_and_the_loop_goes_on(llm):
    calls: list[tuple[str, dict[str, Any]]] = []
    llm.then(Turn(tool_calls=[("bad-literal", "paint", {"color": "blue"}),
                              ("missing", "repeat", {"word": "ab"}),
                              ("not-a-number", "repeat", {"word": "ab", "n": "three"}),
                              ("bad-date", "weekday", {"day": "someday"}),
                              ("bad-model", "norm", {"point": {"y": 1}}),
                              ("unexpected", "repeat", {"word": "ab", "n": 1, "times": 2})]),
             Turn(tool_calls=[("retry", "paint", {"color": "red"})]),
             Turn(content="painted it red"))
    chat = new_chat().with_tools(*make_tools(calls))
    assert chat.ask("paint").content == "painted it red"
    answers = {m["tool_call_id"]: m["content"] for m in llm.tool_messages(1)}
    for answer in answers.values():
        assert answer.startswith("Error: wrong arguments for ")
    assert "color: Input should be 'red' or 'green' (got 'blue')" in answers["bad-literal"]
    assert "n: Field required" in answers["missing"] and "word" not in answers["missing"].split(":", 2)[2]
    assert "n: Input should be a valid integer" in answers["not-a-number"] and "'three'" in answers["not-a-number"]
    assert "day: Input should be a valid date" in answers["bad-date"]
    assert "point.x: Field required" in answers["bad-model"]
    assert "unexpected argument 'times'" in answers["unexpected"]
    assert calls == [("paint", {"color": "red"})]  # none of the bad calls reached a function; the retry did
    assert llm.tool_messages(2)[-1] == {"role": "tool", "tool_call_id": "retry", "content": "painted red"}
    assert_history_valid(chat.messages)


def test_a_function_taking_kwargs_gets_the_extra_arguments_and_defaults_stay_its_own(llm):
    seen: list[dict[str, Any]] = []
    default: list[int] = []

    def tag(name: str, limit: int = 2, items: list[int] = default, **more: Any) -> str:
        """Tag something."""
        seen.append({"name": name, "limit": limit, "items_is_default": items is default, **more})
        return "ok"

    llm.then(Turn(tool_calls=[("c1", "tag", {"name": "x", "colour": "red"})]), Turn(content="tagged"))
    chat = new_chat().with_tools(tag)
    assert chat.ask("tag").content == "tagged"
    assert seen == [{"name": "x", "limit": 2, "items_is_default": True, "colour": "red"}]
