"""Elicitation forms in ``mcp-litellm chat``: choice fields of the 2025-11-25 elicitation schema (titled,
untitled and legacy single-select; titled and untitled multi-select) are listed by their titles and
answered by number, title or value. Unit tests of the form asker, then the chat end to end against the
fixture server's ``elicit_form`` tool."""

from __future__ import annotations

import json
from typing import Any

from mcp_litellm._cli.forms import ask_form, choices, multi_choices
from tests.helpers.cli import chat, fixture_config, tool_messages
from tests.helpers.processes import wait_no_processes
from tests.scripted_llm.server import Turn, fake_llm

TITLED = {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}
UNTITLED = {"type": "string", "enum": ["red", "green", "blue"]}
LEGACY = {"type": "string", "enum": ["cat", "dog"], "enumNames": ["Cat", "Dog"]}
MULTI = {"type": "array", "items": {"type": "string", "enum": ["cheese", "ham", "olives"]}, "minItems": 1,
         "maxItems": 2}
MULTI_TITLED = {"type": "array", "items": {"anyOf": [{"const": "a", "title": "Apples"},
                                                     {"const": "b", "title": "Bananas"}]}}


def fill(schema: dict[str, Any], *answers: str | None) -> tuple[dict[str, Any] | str, list[str]]:
    """Run the form with scripted answers; returns its result and everything shown (questions included)."""
    pending = ["y", *answers]
    shown: list[str] = []

    def ask(question: str) -> str | None:
        shown.append(question)
        assert pending, f"asked more than scripted: {question!r}"
        return pending.pop(0)

    result = ask_form(ask, shown.append, "Fill this in", schema)
    assert not pending, f"answers left over: {pending}"
    return result, shown


def form(**fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": fields}


def test_choices_of_every_enum_shape():
    assert choices(TITLED) == [("s", "Small"), ("l", "Large")]
    assert choices(UNTITLED) == [("red", "red"), ("green", "green"), ("blue", "blue")]
    assert choices(LEGACY) == [("cat", "Cat"), ("dog", "Dog")]
    assert choices({"enum": ["a", "b"], "enumNames": ["A"]}) == [("a", "a"), ("b", "b")]  # names that do not fit
    assert choices({"type": "string"}) is None and choices(MULTI) is None
    assert multi_choices(MULTI) == [("cheese", "cheese"), ("ham", "ham"), ("olives", "olives")]
    assert multi_choices(MULTI_TITLED) == [("a", "Apples"), ("b", "Bananas")]
    assert multi_choices(UNTITLED) is None and multi_choices({"type": "array", "items": {"type": "string"}}) is None


def test_single_select_lists_titles_and_takes_number_title_or_value():
    result, shown = fill(form(size=TITLED, pet=LEGACY, color=UNTITLED), "2", "cat", "GREEN")
    assert result == {"size": "l", "pet": "cat", "color": "green"}
    text = "\n".join(shown)
    assert "1) Small" in text and "2) Large" in text and "1) Cat" in text and "2) Dog" in text
    assert "s" not in [line.strip() for line in shown]  # raw values of titled choices are not shown as choices
    result, shown = fill(form(size=TITLED), "Large")
    assert result == {"size": "l"}


def test_a_wrong_choice_is_asked_again():
    result, shown = fill(form(size=TITLED), "3", "medium", "small")
    assert result == {"size": "s"}
    assert shown.count("    '3' is not one of the choices; answer with a number from 1 to 2 or a name") == 1
    assert "    'medium' is not one of the choices; answer with a number from 1 to 2 or a name" in shown


def test_multi_select_lists_its_choices_and_counts_them():
    result, shown = fill(form(toppings=MULTI, fruit=MULTI_TITLED), "cheese, ham, olives", "1, olives, 1",
                         "bananas,1")
    assert result == {"toppings": ["cheese", "olives"], "fruit": ["b", "a"]}
    text = "\n".join(shown)
    assert "toppings (choose one or more):" in text
    assert "1) cheese" in text and "2) ham" in text and "3) olives" in text
    assert "1) Apples" in text and "2) Bananas" in text
    assert "separate several with commas, at least 1, at most 2, optional" in text
    assert "    choose at most 2" in shown
    schema = form(fruit={**MULTI_TITLED, "minItems": 2})
    schema["required"] = ["fruit"]
    result, shown = fill(schema, "", "1", "1,2")
    assert result == {"fruit": ["a", "b"]}
    assert "    this field is required" in shown and "    choose at least 2" in shown


def test_defaults_are_shown_by_title_and_taken_on_empty_answers():
    schema = form(size={**TITLED, "default": "l"}, fruit={**MULTI_TITLED, "default": ["a", "b"]})
    schema["required"] = ["size"]
    result, shown = fill(schema, "", "")
    assert result == {"size": "l", "fruit": ["a", "b"]}
    text = "\n".join(shown)
    assert "default Large" in text and "default Apples, Bananas" in text


def test_numeric_choices_are_not_numbered():
    schema = form(level={"type": "string", "enum": ["1", "5", "10"]})
    result, shown = fill(schema, "1")
    assert result == {"level": "1"}  # the value "1", not the first choice by number
    assert "      - 10" in shown


def test_declining_cancelling_and_ending_the_input():
    assert ask_form(lambda q: "n", lambda s: None, "m", form(size=TITLED)) == "decline"
    assert ask_form(lambda q: "c", lambda s: None, "m", form(size=TITLED)) == "cancel"
    answers = iter(["y", None])
    assert ask_form(lambda q: next(answers), lambda s: None, "m", form(size=TITLED)) == "cancel"


def test_chat_asks_every_kind_of_field(tmp_path, marker):
    script = [Turn(tool_calls=[("call_1", "elicit_form", {})]), Turn(content="Thanks, Ada.")]
    answers = ["fill in the form", "y", "Ada", "ada@example.com", "", "", "36", "", "", "2", "Large", "2",
               "cheese, 3", "B"]
    with fake_llm(script) as llm:
        done = chat(llm.url, "\n".join(answers) + "\n", "--config", fixture_config(tmp_path, marker))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Thanks, Ada.\n"
    for shown in ("1) Small", "2) Large", "1) Cat", "2) Dog", "1) cheese", "3) olives", "1) A", "2) B",
                  "toppings (choose one or more):", "at least 1, at most 2"):
        assert shown in done.stderr, shown
    result = json.loads(tool_messages(llm.requests[1])[0]["content"])
    assert result["action"] == "accept"
    assert result["content"] == {"name": "Ada", "email": "ada@example.com", "age": 36, "subscribe": False,
                                 "color": "green", "size": "l", "pet": "dog", "toppings": ["cheese", "olives"],
                                 "tags": ["b"]}
    assert wait_no_processes(marker) == []


def test_hostile_form_schemas_do_not_break_the_form():
    assert fill({"type": "object", "properties": "not a mapping"})[0] == {}
    result, shown = fill(form(odd="not a schema", empty={"enum": []}, loose={"oneOf": [{"title": "no const"}]},
                              bad_names={"enum": ["x"], "enumNames": "X"}, items={"type": "array", "items": 3}),
                         "text", "plain", "also plain", "X", "a, b")
    assert result == {"odd": "text", "empty": "plain", "loose": "also plain", "bad_names": "x", "items": ["a", "b"]}
    assert "      1) x" in shown
