"""The documentation is tested: every Python block of README.md and docs/ runs (against the demo server and a
local fake LLM endpoint), every public name has an API reference entry, and CI runs the README's test command.

A block that cannot run here (it needs a network service, a real model, an npm server) is preceded by
``<!-- skip-test: REASON -->``: it is only compiled, and reported as skipped with that reason.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import mcp_litellm
import mcp_litellm.handlers

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^(?P<indent> *)```python\n(?P<code>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
_SKIP = re.compile(r"<!--\s*skip-test:\s*(?P<reason>.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One ```python block of a page."""

    page: str
    line: int
    code: str
    skip: str | None  # the reason it cannot run here, or None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def _blocks() -> list[Block]:
    found: list[Block] = []
    seen: set[str] = set()
    for page in PAGES:
        text = page.read_text()
        for match in _FENCE.finditer(text):
            before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            skip = _SKIP.search(before)
            code = textwrap.dedent(match.group("code"))
            if code in seen:  # the same quickstart on two pages runs once
                continue
            seen.add(code)
            found.append(Block(page=str(page.relative_to(ROOT)), line=text.count("\n", 0, match.start()) + 1,
                               code=code, skip=skip.group("reason") if skip else None))
    return found


BLOCKS = _blocks()
RUNNABLE = [block for block in BLOCKS if block.skip is None]
SKIPPED = [block for block in BLOCKS if block.skip is not None]


class _FakeModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that answers every chat completion with plain text."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        text = "Hello from the fake model."
        if body.get("stream"):
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": body.get("model", "m"),
                     "choices": [{"index": 0, "delta": {"role": "assistant", "content": text},
                                  "finish_reason": None}]}
            done = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            payload = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()
            content_type = "text/event-stream"
        else:
            payload = json.dumps({
                "id": "c1", "object": "chat.completion", "created": 0, "model": body.get("model", "m"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            }).encode()
            content_type = "application/json"
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


class _Runner:
    """tests/docs_runner.py: each example runs in a process forked from one that imported LiteLLM once."""

    def __init__(self, env: dict[str, str]) -> None:
        # "-m" from the root: a script's own folder (tests/, with its typing/ package) would shadow the stdlib
        self.process = subprocess.Popen([sys.executable, "-m", "tests.docs_runner"], cwd=ROOT, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._answer(timeout=600)  # {"ready": true}: LiteLLM imported (seconds; minutes on a loaded machine)

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put("")

    def _answer(self, timeout: float) -> dict[str, int]:
        """The runner's next line (``queue.Empty`` after ``timeout`` seconds)."""
        line = self.lines.get(timeout=timeout)
        assert line, f"tests/docs_runner.py ended (exit status {self.process.wait()})"
        answer: dict[str, int] = json.loads(line)
        return answer

    def run(self, script: Path, stdout: Path, stderr: Path, timeout: float = 120) -> int:
        assert self.process.stdin is not None
        request = {"script": str(script), "cwd": str(script.parent), "stdout": str(stdout), "stderr": str(stderr)}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        pid = self._answer(timeout=30)["pid"]
        try:
            return self._answer(timeout=timeout)["code"]
        except queue.Empty:
            os.killpg(pid, signal.SIGKILL)  # the example and the servers it started
            self._answer(timeout=30)
            raise AssertionError(f"{script} did not finish within {timeout} s") from None

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def fake_model_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.fixture(scope="module")
def runner(fake_model_url: str) -> Iterator[_Runner]:
    env = {**os.environ, "OPENAI_API_BASE": fake_model_url, "OPENAI_BASE_URL": fake_model_url,
           "OPENAI_API_KEY": "sk-docs-test", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    started = _Runner(env)
    yield started
    started.close()


def test_the_pages_have_examples():
    assert len(RUNNABLE) >= 15
    assert any(block.page == "README.md" for block in RUNNABLE)


@pytest.mark.parametrize("block", RUNNABLE, ids=[block.id for block in RUNNABLE])
def test_example_runs(block, runner, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(block.code)
    code = runner.run(script, tmp_path / "stdout.txt", tmp_path / "stderr.txt")
    stderr = (tmp_path / "stderr.txt").read_text()
    assert code == 0, f"{block.id} failed (exit status {code}):\n{block.code}\n--- stderr ---\n{stderr}"


@pytest.mark.parametrize("block", SKIPPED, ids=[block.id for block in SKIPPED])
def test_example_that_cannot_run_here_compiles(block):
    compile(block.code, block.id, "exec")
    pytest.skip(f"{block.id}: {block.skip} (compiled only)")


def _reference() -> str:
    return "\n".join(page.read_text() for page in sorted((ROOT / "docs" / "reference").glob("*.md")))


@pytest.mark.parametrize("module", [mcp_litellm, mcp_litellm.handlers], ids=lambda module: module.__name__)
def test_every_public_name_has_a_reference_entry(module):
    reference = _reference()
    if module is mcp_litellm.handlers:  # the handlers page renders the module with every name of its __all__
        assert re.search(r"^::: mcp_litellm\.handlers\n(?:    .*\n)*      filters: public$", reference, re.M)
        return
    entries = set(re.findall(r"^::: mcp_litellm\.(\w+)$", reference, re.M))
    missing = sorted(set(module.__all__) - entries)
    assert not missing, f"public names without an entry in docs/reference/: {missing}"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    command = next(block for block in re.findall(r"```bash\n(.*?)```", readme, re.S)
                   if "pip install -c .ci/constraints.txt" in block)
    ci = re.sub(r"\s+", " ", (ROOT / ".ci" / "run").read_text())
    steps = [re.sub(r"\s+", " ", step.replace("\\\n", " ")).strip() for step in command.split("&&")]
    assert len(steps) >= 4
    for step in steps:
        assert step in ci, f"the README's test command does {step!r}; .ci/run does not"


def _anchors(page: Path) -> set[str]:
    """The heading anchors of a page, as the toc extension makes them (lower case, punctuation dropped)."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", page.read_text(), flags=re.S), re.M)
    return {re.sub(r"[\s]+", "-", re.sub(r"[^\w\s-]", "", heading).strip().lower()) for heading in headings}


def test_the_readme_links_into_the_docs_resolve():
    # mkdocs build --strict checks the links of docs/; README.md is outside it, so its links are checked here
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(((?!https?://)[^)#]+)(?:#([^)]+))?\)", readme)
    assert len(links) >= 10
    for target, anchor in links:
        page = ROOT / target
        assert page.is_file(), f"README.md links to {target}, which does not exist"
        if anchor:
            assert anchor in _anchors(page), f"README.md links to {target}#{anchor}: no such heading there"
