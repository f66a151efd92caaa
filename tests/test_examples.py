"""Every script in examples/ runs end to end: a real MCP server and a scripted OpenAI-compatible endpoint."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.scripted_llm.server import Turn, fake_llm

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_SERVER = ROOT / "tests" / "servers" / "fixture_server.py"


def run(script: str, url: str, *extra: str,
        model: str | None = "openai/gpt-4o-mini") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run([sys.executable, str(ROOT / "examples" / script), *(["--model", model] if model else []),
                           "--api-base", url, "--api-key", "sk-example", *extra],
                          capture_output=True, text=True, timeout=120, env=env)


def test_tools_example():
    with fake_llm([Turn(tool_calls=[("c1", "add", {"a": 1234, "b": 4321})]), Turn(content="It is 5555.")]) as llm:
        done = run("tools.py", llm.url)
    assert done.returncode == 0, done.stderr
    assert '-> add({"a": 1234, "b": 4321})' in done.stdout and "<- 5555" in done.stdout
    assert done.stdout.strip().endswith("It is 5555.")
    assert {t["function"]["name"] for t in llm.requests[0]["tools"]} >= {"add", "word_count"}


def test_resources_example():
    with fake_llm([Turn(content="Tools and notes.")]) as llm:
        done = run("resources.py", llm.url)
    assert done.returncode == 0, done.stderr
    assert "resource demo://about" in done.stdout and done.stdout.strip().endswith("Tools and notes.")
    context = json.dumps(llm.requests[0]["messages"])
    assert "demo://about" in context and "demo://notes/mcp" in context


def test_prompts_example():
    with fake_llm([Turn(content="Many providers, one API.")]) as llm:
        done = run("prompts.py", llm.url)
    assert done.returncode == 0, done.stderr
    assert "prompt summarize" in done.stdout and "Many providers, one API." in done.stdout
    assert "five words" in json.dumps(llm.requests[0]["messages"])


def test_streaming_example():
    script = [Turn(content="Rolling.", tool_calls=[("c1", "roll_dice", {"sides": 6, "count": 2})]),
              Turn(content="The total is shown above.")]
    with fake_llm(script) as llm:
        done = run("streaming.py", llm.url)
    assert done.returncode == 0, done.stderr
    assert llm.requests[0]["stream"] is True
    assert '[using tool roll_dice {"sides": 6, "count": 2}]' in done.stdout
    assert "[roll_dice returned" in done.stdout and "The total is shown above." in done.stdout


def test_async_example_against_the_fixture_server():
    with fake_llm([Turn(tool_calls=[("c1", "echo", {"message": "hi"})]), Turn(content="Echoed.")]) as llm:
        done = run("async_chat.py", llm.url, "--server", f"{sys.executable} {FIXTURE_SERVER}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Echoed."
    assert [m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool"] == ["hi"]


SCRIPTS = ["tools.py", "resources.py", "prompts.py", "streaming.py", "async_chat.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_examples_explain_their_usage(script):
    done = subprocess.run([sys.executable, str(ROOT / "examples" / script), "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "--model" in done.stdout and "[question]" in done.stdout


@pytest.mark.parametrize("script", SCRIPTS)
def test_examples_take_the_question_and_the_model_from_the_command_line(script):
    question = "Which tool would a local model pick for this?"
    with fake_llm([Turn(content="A scripted answer.")]) as llm:
        done = run(script, llm.url, question, model="openai/my-local-model")
    assert done.returncode == 0, done.stderr
    assert "A scripted answer." in done.stdout
    request = llm.requests[0]
    assert request["model"] == "my-local-model"
    assert question in json.dumps(request["messages"][-1])  # the last message is the user's, with the question


def test_examples_default_to_todays_question_and_model():
    with fake_llm([Turn(content="It is 5555.")]) as llm:
        done = run("tools.py", llm.url, model=None)
    assert done.returncode == 0, done.stderr
    assert llm.requests[0]["model"] == "gpt-4o-mini"
    assert llm.requests[0]["messages"][-1] == {"role": "user", "content": "What is 1234 + 4321? Use the add tool."}
