"""A real LiteLLM Proxy (``litellm --config``) on 127.0.0.1 for the ``proxy`` test group.

The proxy runs from its own virtualenv (litellm[proxy] pins versions the project does not), found
through ``MCP_LITELLM_PROXY`` (the ``litellm`` executable; ``.ci/run`` sets it). Without it the group
is skipped locally, and fails in CI (``CI`` set), so CI never skips it silently. The proxy serves one
model alias, answered by a scripted OpenAI-compatible server on 127.0.0.1, and the fixture MCP server
over stdio in its ``mcp_servers:`` (so ``LITELLM_ENABLE_MCP_STDIO=true``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.helpers.processes import processes_with, wait_no_processes
from tests.helpers.proxy import Proxy
from tests.helpers.servers import FIXTURE_SERVER, free_port
from tests.scripted_llm.server import fake_llm

PROXY_ENV = "MCP_LITELLM_PROXY"
MASTER_KEY = "sk-mcp-litellm-test-master"
MODEL_ALIAS = "fake-gpt"
STARTUP_TIMEOUT = 240.0
"""Seconds the proxy may take to start (about 30-40 s on an idle machine; CI runs tests in parallel)."""


def proxy_executable() -> str:
    """The ``litellm`` executable from ``MCP_LITELLM_PROXY``; skip (locally) or fail (CI) without it."""
    path = os.environ.get(PROXY_ENV, "")
    problem = None
    if not path:
        problem = f"{PROXY_ENV} is not set"
    elif not os.access(path, os.X_OK):
        problem = f"{PROXY_ENV}={path} is not an executable file"
    if problem is None:
        return path
    how = (f"{problem}; the proxy tests need the LiteLLM Proxy: python3 -m venv .ci/proxy-venv && "
           f".ci/proxy-venv/bin/pip install -c .ci/proxy-constraints.txt 'litellm[proxy]==1.106.2', then "
           f"{PROXY_ENV}=$PWD/.ci/proxy-venv/bin/litellm (.ci/run does this)")
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the proxy tests: {how}", pytrace=False)
    pytest.skip(how)


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the LiteLLM Proxy exited with code {process.returncode}:\n"
                               + "\n".join(log.read_text(errors="replace").splitlines()[-40:]))
        try:
            with urllib.request.urlopen(f"{url}/health/liveliness", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the LiteLLM Proxy did not answer within {STARTUP_TIMEOUT}s:\n"
                       + "\n".join(log.read_text(errors="replace").splitlines()[-40:]))


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)  # the proxy leads its own process group (start_new_session)
        process.wait(timeout=15)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


@pytest.fixture(scope="session")
def litellm_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    executable = proxy_executable()
    directory = tmp_path_factory.mktemp("litellm-proxy")
    marker = f"mlproxy{uuid.uuid4().hex[:10]}"  # on the fixture server's command line, to find it afterwards
    with fake_llm([]) as llm:
        config = directory / "config.yaml"
        config.write_text(yaml.safe_dump({
            "model_list": [{"model_name": MODEL_ALIAS, "litellm_params": {
                "model": "openai/fake-gpt", "api_base": llm.url, "api_key": "os.environ/FAKE_LLM_KEY"}}],
            "general_settings": {"master_key": MASTER_KEY},
            "mcp_servers": {"fixture": {
                "transport": "stdio", "command": sys.executable,
                "args": [str(FIXTURE_SERVER), "--name", f"fixture-{marker}"],
                "description": "the test suite's fixture server",
                "disallowed_tools": ["crash"],
            }},
        }, sort_keys=False))
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        log = directory / "proxy.log"
        env = {**os.environ, "LITELLM_ENABLE_MCP_STDIO": "true", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "FAKE_LLM_KEY": "sk-fake-upstream"}
        with log.open("wb") as out:
            command = [executable, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)]
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True,
                                       cwd=directory)
        try:
            _wait_ready(url, process, log)
            yield Proxy(url=url, key=MASTER_KEY, alias=MODEL_ALIAS, config=config, llm=llm, log=log)
        finally:
            _stop(process)
            for pid in wait_no_processes(marker, timeout=10):  # stdio servers the proxy started, if it left any
                os.kill(pid, signal.SIGKILL)
    assert not processes_with(marker)
