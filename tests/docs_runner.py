"""Runs documentation examples as scripts, each in a fresh process forked from one that imported LiteLLM once.

tests/test_docs.py starts this once per module. Importing LiteLLM takes seconds of CPU, which every example
would otherwise pay again; a fork of a process that has only imported modules (no thread, no event loop, no
client yet) runs the script as ``python script.py`` would, and ends the way an interpreter does (atexit
handlers included). Protocol, one JSON object per line: out ``{"ready": true}`` once imported; then in
``{"script", "cwd", "stdout", "stderr"}``, out ``{"pid": N}`` at once and ``{"code": N}`` when the script has ended.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys
import threading
import traceback

import litellm

import mcp_litellm  # noqa: F401


def _warm_up() -> None:
    """Load what the first chat would load (tokenizer, the OpenAI client's modules), without starting a thread
    or an event loop: a fork copies only the thread that forks. Optional: a failure here only costs time."""
    try:
        import anyio._backends._asyncio  # noqa: F401
        import openai

        litellm.token_counter(model="gpt-4o-mini", text="warm up")
        client = openai.OpenAI(api_key="warm-up")
        _ = client.chat.completions, client.responses, client.embeddings
        _ = openai.AsyncOpenAI(api_key="warm-up").chat.completions
        importlib.import_module("litellm.main")
        importlib.import_module("litellm.litellm_core_utils.streaming_handler")
    except Exception:
        pass


def _child(request: dict[str, str]) -> None:
    """In the forked process: become ``python script.py`` and never return."""
    os.setpgid(0, 0)  # its own process group, so a timeout can end the servers it started too
    stdin = os.open(os.devnull, os.O_RDONLY)
    os.dup2(stdin, 0)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    os.chdir(request["cwd"])
    sys.argv = [request["script"]]
    sys.path[0] = os.path.dirname(request["script"])
    try:
        runpy.run_path(request["script"], run_name="__main__")
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        raise SystemExit(1) from None
    raise SystemExit(0)


def main() -> None:
    _warm_up()
    assert threading.active_count() == 1, f"a fork would lose these threads: {threading.enumerate()}"
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)  # raises SystemExit: the child's interpreter shuts down as after a script
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"code": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    main()
