"""``mcp-litellm chat`` in a real pseudo-terminal: line editing and history, Ctrl-C at the prompt, during a
tool call and during a model request, local slash commands, the approval prompt before "using tool", and
a piped stdout that holds only the answers.

The chat runs as a subprocess whose controlling terminal is a pty, against the fixture MCP server over
stdio and a scripted OpenAI-compatible endpoint on 127.0.0.1.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.terminal import CTRL_C, CTRL_D, Terminal
from tests.helpers.entries import fixture_entry
from tests.helpers.processes import wait_no_processes
from tests.scripted_llm.server import Turn, fake_llm

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
needs_readline = pytest.mark.skipif(importlib.util.find_spec("readline") is None, reason="Python without readline")

MODEL = "openai/gpt-4o-mini"
LEFT, UP = "\x1b[D", "\x1b[A"
NOISE = ("Traceback", "Task was destroyed", "was never awaited", "Exception ignored", "RuntimeWarning")


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The chat's environment: its state directory in ``tmp_path``, no user inputrc, a plain terminal type."""
    inputrc = tmp_path / "inputrc"
    inputrc.write_text("")
    return {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "DISABLE_AIOHTTP_TRANSPORT": "True",
            "XDG_STATE_HOME": str(tmp_path / "state"), "INPUTRC": str(inputrc), "TERM": "xterm"}


def config(tmp_path: Path, marker: str) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"fixture": fixture_entry("fixture", marker, protocol="legacy")}}))
    return str(path)


def start(url: str, env: dict[str, str], cfg: str, *extra: str, piped_stdout: bool = False) -> Terminal:
    return Terminal(["chat", "-m", MODEL, "--api-base", url, "--api-key", "sk-test-key", "-c", cfg, *extra],
                    env=env, piped_stdout=piped_stdout)


def user_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m.get("role") == "user"]


def assert_clean(term: Terminal) -> None:
    for noise in NOISE:
        assert noise not in term.output, term.output


def quit_chat(term: Terminal, after: int) -> tuple[int, str]:
    """Press Ctrl-D at the prompt that follows ``after`` (as a person would: once the prompt shows)."""
    term.expect("you> ", after=after)
    term.settle(0.2)
    term.send(CTRL_D)
    return term.finish()


@needs_readline
def test_line_editing_and_history_across_sessions(tmp_path, home, marker):
    cfg = config(tmp_path, marker)
    with fake_llm([Turn(content="First answer."), Turn(content="Second answer.")]) as llm:
        term = start(llm.url, home, cfg)
        try:
            term.expect("you> ")
            term.send("say wrld" + LEFT * 3 + "o\r")  # cursor left three times, insert the missing letter
            done = term.expect("First answer.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
        assert code == 0, term.output
        assert user_messages(llm.requests[0]) == ["say world"]
        history = Path(home["XDG_STATE_HOME"]) / "mcp-litellm" / "history"
        assert "say world" in history.read_text()
        assert stat.S_IMODE(history.stat().st_mode) == 0o600
        term = start(llm.url, home, cfg)  # a new session: the arrow up brings the last question back
        try:
            term.expect("you> ")
            term.send(UP + "\r")
            done = term.expect("Second answer.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
        assert code == 0, term.output
        assert user_messages(llm.requests[1]) == ["say world"]
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_ctrl_c_at_the_prompt_clears_the_line(tmp_path, home, marker):
    with fake_llm([Turn(content="Only this was asked.")]) as llm:
        term = start(llm.url, home, config(tmp_path, marker))
        try:
            term.expect("you> ")
            term.send("half a thought")
            typed = term.expect("half a thought")  # shown before Ctrl-C (which flushes the terminal's queues)
            term.send(CTRL_C)
            after = term.expect("you> ", after=typed)
            term.send(CTRL_C)  # again, on an empty line: still only a new prompt
            term.expect("you> ", after=after)
            term.line("the real question")
            done = term.expect("Only this was asked.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    assert len(llm.requests) == 1
    assert user_messages(llm.requests[0]) == ["the real question"]
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_ctrl_c_stops_a_tool_call_and_returns_to_the_prompt(tmp_path, home, marker):
    script = [Turn(tool_calls=[("call_1", "wait", {"seconds": 120})]),
              Turn(tool_calls=[("call_2", "server_events", {})]), Turn(content="The wait was cancelled.")]
    with fake_llm(script) as llm:
        term = start(llm.url, home, config(tmp_path, marker))
        try:
            term.expect("you> ")
            term.line("wait for two minutes")
            shown = term.expect('using tool wait {"seconds": 120}')
            time.sleep(1.0)  # the call is under way on the server
            started = time.monotonic()
            term.send(CTRL_C)
            term.expect("(interrupted)", after=shown)
            term.expect("you> ", after=shown)
            assert time.monotonic() - started < 15  # far from the tool's 120 s
            term.line("what happened to it?")
            done = term.expect("The wait was cancelled.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    second = llm.requests[1]
    assert user_messages(second) == ["wait for two minutes", "what happened to it?"]
    interrupted = [m for m in second["messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in interrupted] == ["call_1"]  # the conversation stays well formed
    events = [m for m in llm.requests[2]["messages"] if m.get("role") == "tool"][-1]["content"]
    assert "wait cancelled" in events and "wait finished" not in events  # the server saw the cancellation
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_ctrl_c_stops_a_slow_model_request(tmp_path, home, marker):
    script = [Turn(content="Too late.", delay=60), Turn(content="Quick answer.")]
    with fake_llm(script) as llm:
        term = start(llm.url, home, config(tmp_path, marker))
        try:
            term.expect("you> ")
            term.line("think hard")
            deadline = time.monotonic() + 30
            while not llm.requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert llm.requests, "the model request never arrived"
            mark = len(term.output)
            term.send(CTRL_C)
            term.expect("(interrupted)", after=mark)
            term.expect("you> ", after=mark)
            term.line("think less")
            done = term.expect("Quick answer.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    assert "Too late." not in term.output
    assert user_messages(llm.requests[1]) == ["think less"]  # the unanswered question was taken back
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_slash_commands_are_answered_locally(tmp_path, home, marker):
    with fake_llm([Turn(content="Root it is.")]) as llm:
        term = start(llm.url, home, config(tmp_path, marker))
        try:
            term.expect("you> ")
            term.line("/help")
            term.expect("/usage")
            term.line("/tools")
            term.expect("add(a: integer, b: integer)")
            term.line("/nope")
            term.expect("unknown command /nope; /help lists the commands")
            term.line("/usage")
            term.expect("0 model requests")
            assert llm.requests == []  # nothing went to the model
            term.line("//etc is a directory")
            term.expect("Root it is.")
            term.line("/exit")
            code, _ = term.finish()
        finally:
            term.close()
    assert code == 0, term.output
    assert [user_messages(r) for r in llm.requests] == [["/etc is a directory"]]
    assert_clean(term)
    assert wait_no_processes(marker) == []


@needs_readline
def test_using_tool_is_shown_after_the_approval(tmp_path, home, marker):
    script = [Turn(tool_calls=[("call_1", "add", {"a": 2, "b": 3})]), Turn(content="It is 5.")]
    with fake_llm(script) as llm:
        term = start(llm.url, home, config(tmp_path, marker), "--approve")
        try:
            term.expect("you> ")
            term.line("add 2 and 3")
            asked = term.expect('allow tool add {"a": 2, "b": 3}? [y/N] ')
            term.settle(0.5)
            assert "using tool" not in term.output  # nothing says the tool runs before the user allowed it
            term.line("y")
            used = term.expect('using tool add {"a": 2, "b": 3}', after=asked)
            done = term.expect("It is 5.", after=used)
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    assert term.output.count("using tool add") == 1
    assert [m["content"] for m in llm.requests[1]["messages"] if m.get("role") == "tool"] == ["5"]
    history = (Path(home["XDG_STATE_HOME"]) / "mcp-litellm" / "history").read_text().splitlines()
    assert "add 2 and 3" in history and "y" not in history  # answers to the approval are not history
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_piped_stdout_holds_only_the_answers(tmp_path, home, marker):
    script = [Turn(content="Let me add.", tool_calls=[("call_1", "add", {"a": 2, "b": 3})]),
              Turn(content="The sum is 5."), Turn(content="Bye.")]
    with fake_llm(script) as llm:
        term = start(llm.url, home, config(tmp_path, marker), "--approve", piped_stdout=True)
        try:
            term.expect("you> ")  # the prompt and the tool lines are on the terminal (stderr)
            term.line("add 2 and 3")
            term.expect("allow tool add")
            term.line("y")
            term.expect('using tool add {"a": 2, "b": 3}')
            term.expect("you> ", after=term.output.find("using tool add"))
            term.line("thanks")
            code, stdout = quit_chat(term, term.expect("thanks"))
        finally:
            term.close()
    assert code == 0, term.output
    assert stdout == "Let me add.\nThe sum is 5.\nBye.\n"
    assert "The sum is 5." not in term.output
    assert_clean(term)
    assert wait_no_processes(marker) == []


def test_ctrl_c_at_the_approval_question_stops_the_call(tmp_path, home, marker):
    script = [Turn(tool_calls=[("call_1", "add", {"a": 2, "b": 3})]), Turn(content="Fine, no tool then.")]
    with fake_llm(script) as llm:
        term = start(llm.url, home, config(tmp_path, marker), "--approve")
        try:
            term.expect("you> ")
            term.line("add 2 and 3")
            asked = term.expect("? [y/N] ")
            term.send(CTRL_C)
            term.expect("(interrupted)", after=asked)
            term.expect("you> ", after=asked)
            term.line("never mind")
            done = term.expect("Fine, no tool then.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    assert "using tool" not in term.output and "denied" not in term.output
    answered = [m for m in llm.requests[1]["messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["call_1"] and answered[0]["content"] != "5"
    assert_clean(term)
    assert wait_no_processes(marker) == []


UNKNOWN_MODEL = "openai/my-local-model"  # LiteLLM knows no input window for it: the 2,000-token default budget


def offered_tools(request: dict) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools") or []]


def banner_of(term: Terminal) -> str:
    """The chat's first lines, up to the hint that ends them."""
    end = term.expect("Ctrl-D quits.")
    return term.output[:end]


@pytest.mark.parametrize(("flags", "searching"), [((), True), (("--no-tool-search",), False),
                                                   (("--tool-budget", "50000"), False)])
def test_the_banner_says_when_tool_search_is_on_and_why(tmp_path, home, marker, flags, searching):
    """A model LiteLLM does not know gets the 2,000-token default budget; four servers' 100 tools exceed it."""
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {name: fixture_entry(name, marker, protocol="legacy")
                                               for name in ("a", "b", "c", "d")}}))
    with fake_llm([Turn(content="A scripted answer.")]) as llm:
        term = Terminal(["chat", "-m", UNKNOWN_MODEL, "--api-base", llm.url, "--api-key", "sk-test-key", "-c",
                         str(path), *flags], env=home)
        try:
            banner = banner_of(term)
            term.line("hello")
            code, _ = quit_chat(term, term.expect("A scripted answer."))
        finally:
            term.close()
    assert code == 0, term.output
    assert f"mcp-litellm chat with {UNKNOWN_MODEL}; 100 tools from a, b, c, d." in banner
    offered = offered_tools(llm.requests[0])
    if searching:
        assert re.search(r"Tool search is on: 100 tools \([\d,]+ tokens of definitions\) exceed the 2,000-token "
                         rf"tool budget for {UNKNOWN_MODEL} \(the default for a model whose input window LiteLLM "
                         r"does not know\)\. The model gets a search_tools tool and finds the others with it "
                         r"\(--no-tool-search offers every tool, --tool-budget N sets the budget\)\.", banner), banner
        assert offered == ["search_tools"]
    else:
        assert "Tool search" not in banner
        assert len(offered) == 100 and "search_tools" not in offered
    assert_clean(term)
    assert wait_no_processes(marker) == []


@pytest.mark.parametrize(("flags", "notice"), [
    (("--tool-search",), "Tool search is on (--tool-search): the model gets a search_tools tool and finds the 25 "
                         "tools with it."),
    (("--tool-budget", "100"), "Tool search is on: 25 tools ({tokens} tokens of definitions) exceed the 100-token "
                               f"tool budget for {MODEL} (as set)."),
])
def test_the_tool_search_flags_turn_it_on(tmp_path, home, marker, flags, notice):
    with fake_llm([Turn(content="A scripted answer.")]) as llm:
        term = start(llm.url, home, config(tmp_path, marker), *flags)
        try:
            banner = banner_of(term)
            term.line("hello")
            code, _ = quit_chat(term, term.expect("A scripted answer."))
        finally:
            term.close()
    assert code == 0, term.output
    tokens = re.search(r"\(([\d,]+) tokens of definitions\)", banner)
    assert notice.format(tokens=tokens.group(1) if tokens else "?") in banner, banner
    assert offered_tools(llm.requests[0]) == ["search_tools"]
    assert_clean(term)
    assert wait_no_processes(marker) == []


WITHOUT_READLINE = ("-c", "import sys; sys.modules['readline'] = None; from mcp_litellm._cli.main import main; "
                          "sys.exit(main())")


@needs_readline
def test_the_chat_works_without_readline_or_a_writable_state_directory(tmp_path, home, marker):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    env = {**home, "XDG_STATE_HOME": str(blocker)}  # the history cannot be saved under a file
    script = [Turn(content="Plain input works."), Turn(content="Still here."), Turn(content="Edited.")]
    with fake_llm(script) as llm:
        term = Terminal(["chat", "-m", MODEL, "--api-base", llm.url, "--api-key", "sk-test-key", "-c",
                         config(tmp_path, marker)], env=env, python=WITHOUT_READLINE)
        try:
            term.expect("you> ")
            term.line("hello")
            term.expect("you> ", after=term.expect("Plain input works."))
            term.send("dropped")
            typed = term.expect("dropped")
            # Without readline, Ctrl-C at the prompt still only clears the line. (CPython's plain input()
            # misses a Ctrl-C that lands between writing the prompt and reading the line, as can happen on
            # a loaded machine; a user presses it again, and so does this test, once.)
            term.send(CTRL_C)
            try:
                term.expect("you> ", after=typed, timeout=10)
            except AssertionError:
                term.send(CTRL_C)
                term.expect("you> ", after=typed)
            term.line("again")
            done = term.expect("Still here.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
        assert code == 0, term.output
        assert_clean(term)
        term = start(llm.url, env, config(tmp_path, marker))  # readline, but nowhere to keep the history
        try:
            term.expect("you> ")
            term.send("edited" + LEFT + "!\r")
            done = term.expect("Edited.")
            code, _ = quit_chat(term, done)
        finally:
            term.close()
    assert code == 0, term.output
    assert_clean(term)
    assert [user_messages(r)[-1] for r in llm.requests] == ["hello", "again", "edite!d"]
    assert wait_no_processes(marker) == []


def test_ctrl_c_stops_call_with_exit_code_130(tmp_path, home, marker):
    term = Terminal(["call", "slow", "seconds=120", "steps=2", "-c", config(tmp_path, marker)], env=home)
    try:
        term.expect("step 1/2")  # the progress bar: the call is under way
        started = time.monotonic()
        term.send(CTRL_C)
        code, _ = term.finish()
    finally:
        term.close()
    assert code == 130, term.output
    assert time.monotonic() - started < 15
    assert_clean(term)
    assert wait_no_processes(marker) == []


CAUGHT_LATE = """
import os, signal, sys, threading, time
from mcp_litellm._cli.terminal import _CtrlCWatch

watch = _CtrlCWatch()
if sys.argv[1] == "on":
    watch.start()
read, write = os.pipe()

def press():  # a Ctrl-C that CPython notes but that interrupts no wait: it lands on another thread
    time.sleep(0.2)
    signal.pthread_kill(threading.get_ident(), signal.SIGINT)

def key():  # the next key press, which is when an unwatched wait would notice
    time.sleep(4.0)
    os.write(write, b"x")

threading.Thread(target=press, daemon=True).start()
threading.Thread(target=key, daemon=True).start()
started = time.monotonic()
try:
    with watch.waiting():
        os.read(read, 1)
    print("not interrupted")
except KeyboardInterrupt:
    print(f"interrupted after {time.monotonic() - started:.2f}")
watch.stop()
"""


@pytest.mark.parametrize("watch", ["on", "off"])
def test_a_ctrl_c_noted_but_not_seen_by_the_wait_still_ends_it(watch):
    """The race behind a prompt that ignored Ctrl-C: the signal is noted while the main thread's wait is not
    interrupted. Watched, the wait ends within a moment; unwatched, only at the next key."""
    done = subprocess.run([sys.executable, "-c", CAUGHT_LATE, watch], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("interrupted after "), done.stdout + done.stderr
    waited = float(done.stdout.split()[-1])
    if watch == "on":
        assert waited < 2.0, done.stdout
    else:
        assert waited >= 3.5, done.stdout
