"""``mcp-litellm doctor`` run as a subprocess against real servers: the demo server, a server whose tools
break provider rules (stdio and streamable HTTP), the TypeScript SDK's everything server, a server that
does not start, and an OAuth server nobody logged in to. Token numbers are compared with
``litellm.token_counter`` over the definitions the library sends, computed here."""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.helpers.processes import wait_no_processes
from tests.helpers.servers import EVERYTHING, free_port, start_http_server, stop_process
from tests.servers.doctor_server import LONG_NAME

DOCTOR_SERVER = Path(__file__).resolve().parent.parent / "servers" / "doctor_server.py"


def run(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mcp_litellm", "doctor", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def report(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    done = run(*args, "--format", "json", env=env)
    assert "Traceback" not in done.stderr, done.stderr
    parsed = json.loads(done.stdout)
    assert parsed["exit_code"] == done.returncode
    return done.returncode, parsed


def write_config(tmp_path: Path, servers: dict[str, Any]) -> str:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def bad_server(**options: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(DOCTOR_SERVER)], **options}


def definitions(config: dict[str, Any], model: str) -> list[dict[str, Any]]:
    """The tool definitions the library sends ``model`` for the servers of ``config``."""
    with ml.ClientGroup({"mcpServers": config}) as group:
        return [tool.to_litellm(model) for tool in group.tools()]


def token_count(model: str, tools: list[dict[str, Any]]) -> int:
    import litellm

    return int(litellm.token_counter(model=model, messages=[], tools=tools))


def errors(row: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for finding in row["findings"]:
        if finding["level"] == "error":
            found.setdefault(finding["tool"], []).append(finding["message"])
    return found


@pytest.fixture(scope="module")
def doctor_http() -> Iterator[str]:
    port = free_port()
    process = start_http_server([sys.executable, str(DOCTOR_SERVER), "streamable-http", "--port", str(port)], port)
    yield f"http://127.0.0.1:{port}/mcp"
    stop_process(process)


def test_help():
    done = subprocess.run([sys.executable, "-m", "mcp_litellm", "doctor", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert "mcp-litellm doctor" in done.stdout and "--model" in done.stdout and "openai/gpt-4o-mini" in done.stdout
    assert "3 the model's provider would reject a tool" in " ".join(done.stdout.split())


def test_demo_server_with_the_default_model():
    code, doc = report()
    assert code == 0
    assert (doc["model"], doc["default"], doc["provider"], doc["rules"]) == ("openai/gpt-4o-mini", True, "openai",
                                                                             "openai")
    assert (doc["tokenizer"], doc["exact"]) == ("tiktoken o200k_base", True)
    [demo] = doc["servers"]
    assert (demo["name"], demo["status"], demo["transport"], demo["auth"]) == ("demo", "ok", "stdio", "none")
    assert (demo["protocol"], demo["era"]) == ("2026-07-28", "2026-07-28")
    assert demo["capabilities"] == {"prompts": ["listChanged"], "resources": ["subscribe", "listChanged"],
                                    "tools": ["listChanged"]}
    sent = definitions({"demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}},
                       "openai/gpt-4o-mini")
    assert demo["counts"] == {"tools": len(sent), "resources": 1, "resource_templates": 1, "prompts": 1}
    assert demo["tool_tokens"] == token_count("gpt-4o-mini", sent) == doc["tool_tokens"]
    assert doc["tool_count"] == len(sent) >= 4
    assert demo["tool_tokens_estimated"] == 0
    assert all(not t["changed"] for t in demo["tools"]) and demo["findings"] == []

    text = run()
    assert text.returncode == 0, text.stderr
    assert "model: openai/gpt-4o-mini (the default; choose one with -m)" in text.stdout
    assert "protocol      2026-07-28 (2026-07-28 era" in text.stdout
    assert f"tool tokens   {demo['tool_tokens']}" in text.stdout
    assert "openai accepts every tool name and schema" in text.stdout


def test_bad_tools_for_openai(tmp_path):
    config = {"bad": bad_server(protocol="legacy")}
    code, doc = report("-c", write_config(tmp_path, config), "-m", "gpt-4o")
    assert code == 3, doc
    [row] = doc["servers"]
    assert (row["protocol"], row["era"]) == ("2025-11-25", "2025")
    assert row["capabilities"] == {"prompts": [], "resources": [], "tools": []}
    assert row["counts"] == {"tools": 9, "resources": 1, "resource_templates": 0, "prompts": 1}
    assert errors(row) == {"no_items": ["openai rejects an array schema without 'items' at 'paths' "
                                        "(\"array schema missing items\")"]}
    names = {t["server_name"]: t for t in row["tools"]}
    assert names["files.read"]["name"] == "files_read" and names["files.read"]["changed"]
    assert names["read file"]["name"] == "read_file"
    assert len(names[LONG_NAME]["name"]) == 64 and "shortened with a hash" in names[LONG_NAME]["reason"]
    assert names["a_b"] == {"server_name": "a_b", "name": "a_b", "changed": False, "reason": None}
    assert names["a.b"]["name"].startswith("a_b_") and "cleans to the same name" in names["a.b"]["reason"]
    assert names["1st_tool"]["changed"] is False
    assert any(f["level"] == "warning" and "collision: 'a.b', 'a_b'" in f["message"] for f in row["findings"])
    sent = definitions(config, "gpt-4o")
    try:  # LiteLLM 1.110 counts the array without items
        assert row["tool_tokens"] == token_count("gpt-4o", sent) and row["tool_tokens_estimated"] == 0
        return
    except (KeyError, ValueError, TypeError):
        pass
    # LiteLLM 1.106.2's token_counter fails on the array without items: that definition is estimated, the rest counted
    countable = [d for d in sent if d["function"]["name"] != "no_items"]
    [uncountable] = [d for d in sent if d["function"]["name"] == "no_items"]
    estimate = len(json.dumps(uncountable, separators=(",", ":"))) // 4
    assert row["tool_tokens"] == token_count("gpt-4o", countable) + estimate
    assert row["tool_tokens_estimated"] == 1


def test_bad_tools_for_gemini_over_http(doctor_http, tmp_path):
    config = {"bad": {"url": doctor_http}}
    code, doc = report("-c", write_config(tmp_path, config), "-m", "gemini/gemini-2.5-flash")
    assert code == 3
    assert (doc["provider"], doc["rules"], doc["exact"]) == ("gemini", "gemini", False)
    [row] = doc["servers"]
    assert (row["transport"], row["status"], row["era"]) == ("streamable", "ok", "2026-07-28")
    found = errors(row)
    assert set(found) == {"1st_tool"}
    assert "gemini rejects the name '1st_tool'" in found["1st_tool"][0]
    # the enum with "" (sent by LiteLLM as null, which Gemini refuses) goes into the description instead
    [empty_enum] = [f["message"] for f in row["findings"] if f["tool"] == "empty_enum"]
    assert empty_enum.startswith("not sent to gemini: enum (")
    # converted rather than rejected: LiteLLM adds the missing items, $ref/$defs are inlined
    assert "no_items" not in found
    [rich] = [f["message"] for f in row["findings"] if f["tool"] == "rich"]
    assert rich.startswith("not sent to gemini: additionalProperties, const, oneOf (")


def test_bad_tools_for_anthropic(tmp_path):
    code, doc = report("-c", write_config(tmp_path, {"bad": bad_server()}), "-m", "anthropic/claude-sonnet-4-5")
    assert code == 0, doc
    assert (doc["provider"], doc["rules"]) == ("anthropic", "anthropic")
    [row] = doc["servers"]
    assert errors(row) == {}
    assert sum(t["changed"] for t in row["tools"]) == 4


def test_third_party_server_capabilities(tmp_path):
    if not EVERYTHING.exists():
        pytest.skip("run: npm ci --prefix tests/thirdparty")
    cfg = write_config(tmp_path, {"everything": {"command": "node", "args": [str(EVERYTHING)]}})
    code, doc = report("-c", cfg, "-m", "openai/gpt-4o")
    assert code == 0, doc
    [row] = doc["servers"]
    assert (row["era"], row["server"]) == ("2025", "mcp-servers/everything")
    caps = row["capabilities"]
    assert {"logging", "completions", "tools", "resources", "prompts"} <= set(caps)
    assert caps["resources"] == ["subscribe", "listChanged"]
    assert row["counts"]["tools"] == len(definitions({"everything": {"command": "node", "args": [str(EVERYTHING)]}},
                                                     "openai/gpt-4o")) > 0


def test_a_server_that_fails_is_reported_and_the_others_checked(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    config = {"demo": demo, "again": demo, "broken": {"command": str(tmp_path / "no-such-server")}}
    cfg = write_config(tmp_path, config)
    code, doc = report("-c", cfg)
    assert code == 1
    rows = {r["name"]: r for r in doc["servers"]}
    assert rows["broken"]["status"] == "failed" and "no-such-server" in rows["broken"]["error"]
    assert rows["demo"]["status"] == rows["again"]["status"] == "ok"
    add = next(t for t in rows["again"]["tools"] if t["server_name"] == "add")
    assert add["name"] == "again__add" and "another server offers the same name" in add["reason"]
    both = definitions({"demo": demo, "again": demo}, "openai/gpt-4o-mini")
    assert doc["tool_tokens"] == token_count("gpt-4o-mini", both)
    text = run("-c", cfg)
    assert text.returncode == 1
    assert "broken: failed (stdio)" in text.stdout and "no-such-server" in text.stdout
    assert "3 servers, 1 not running" in text.stdout


def test_every_server_failing_is_still_a_report(tmp_path, marker):
    """Unreachable, missing and silent servers: each reported with its error (no secret from the config in
    it), within the timeout, and no server process left behind."""
    bad = Path(__file__).resolve().parent.parent / "servers" / "bad_stdio_server.py"
    cfg = write_config(tmp_path, {
        "remote": {"url": f"http://127.0.0.1:{free_port()}/mcp", "headers": {"Authorization": "Bearer sekrit-1234"}},
        "missing": {"command": str(tmp_path / "nope"), "args": ["--api-key", "sekrit-5678"]},
        "silent": {"command": sys.executable, "args": [str(bad), "silent", marker], "env": {"KEY": "sekrit-90"}},
    })
    done = run("-c", cfg, "--timeout", "3", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert "sekrit" not in done.stdout + done.stderr
    doc = json.loads(done.stdout)
    assert [(r["name"], r["status"]) for r in doc["servers"]] == [("remote", "failed"), ("missing", "failed"),
                                                                  ("silent", "failed")]
    assert "within 3.0s" in doc["servers"][2]["error"]
    assert (doc["tool_count"], doc["tool_tokens"]) == (0, 0)
    assert wait_no_processes(marker) == []


def test_a_collision_the_config_forbids_is_reported(tmp_path):
    demo = {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}
    cfg = write_config(tmp_path, {"demo": {**demo, "with_prefix": False}, "again": demo})
    code, doc = report("-c", cfg)
    assert code == 3
    [finding] = doc["findings"]
    assert finding["level"] == "error" and "with_prefix" in finding["message"]
    own = len(definitions({"demo": demo}, "openai/gpt-4o-mini"))
    assert [r["counts"]["tools"] for r in doc["servers"]] == [own, own]


def test_a_server_whose_tool_list_fails(tmp_path):
    failing = bad_server()
    failing["args"].append("--fail-tools-list")
    cfg = write_config(tmp_path, {"failing": failing})
    code, doc = report("-c", cfg)
    assert code == 1
    [row] = doc["servers"]
    assert row["status"] == "ok" and row["counts"]["tools"] is None
    assert row["list_errors"]["tools"] == "server error -32603 on tools/list: Internal server error"
    assert row["counts"]["prompts"] == 1  # the rest is still checked
    text = run("-c", cfg)
    assert "listing tools failed: " in text.stdout and "? tools" in text.stdout


def test_oauth_server_before_and_after_login(tmp_path):
    from tests.auth.oauth_server import OAuthServer
    from tests.helpers.oauth import login

    server = OAuthServer().start()
    tokens = tmp_path / "tokens"
    env = {"MCP_LITELLM_OAUTH_DIR": str(tokens), "MCP_LITELLM_NO_BROWSER": "1"}
    try:
        cfg = write_config(tmp_path, {"notes": {"url": server.url, "auth": "oauth"},
                                      "demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}})
        started = time.monotonic()
        code, doc = report("-c", cfg, env=env)
        assert time.monotonic() - started < 60
        assert server.grants() == []  # nothing was attempted on the user's behalf
        assert code == 1
        rows = {r["name"]: r for r in doc["servers"]}
        assert rows["notes"] == {"name": "notes", "transport": "streamable", "auth": "not authorized",
                                 "status": "login", "error": "not authorized: run 'mcp-litellm login notes'"}
        assert rows["demo"]["status"] == "ok" and rows["demo"]["auth"] == "none"
        assert "notes: login (streamable)" in run("-c", cfg, env=env).stdout

        assert login(cfg, tokens, paste=True)[0] == 0
        code, doc = report("-c", cfg, env=env)
    finally:
        server.stop()
    assert code == 0, doc
    notes = next(r for r in doc["servers"] if r["name"] == "notes")
    assert (notes["status"], notes["auth"], notes["server"]) == ("ok", "authorized", "oauth-test")
    assert notes["counts"]["tools"] == 2 and notes["tool_tokens"] > 0  # add and whoami


def test_usage_errors(tmp_path):
    done = run("-s", "nope")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == "mcp-litellm: error: no server named 'nope'; available: 'demo'"
    cfg = write_config(tmp_path, {})
    done = run("-c", cfg)
    assert (done.returncode, done.stderr.strip()) == (2, f"mcp-litellm: error: no servers in the config {cfg}")


@pytest.fixture
def hub_requests() -> Iterator[tuple[str, list[str]]]:
    """A stand-in Hugging Face Hub on 127.0.0.1 (``HF_ENDPOINT``) that answers 404 and records each path."""
    seen: list[str] = []

    class Hub(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(404)
            self.end_headers()

        do_HEAD = do_GET

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", seen
    server.shutdown()
    thread.join(5)


def test_llama_tokenizer_is_not_downloaded(tmp_path, hub_requests):
    """LiteLLM would fetch the Llama 3 tokenizer from the Hugging Face Hub (and retry for about 20 s without
    network); the doctor counts with LiteLLM's tiktoken fallback instead, says so, and asks the Hub nothing."""
    endpoint, seen = hub_requests
    env = {"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "0", "HF_ENDPOINT": endpoint}
    code, doc = report("-m", "groq/llama-3.1-8b-instant", env=env)
    assert [path for path in seen if "tokenizer" in path] == []
    assert code == 0
    assert (doc["provider"], doc["rules"], doc["exact"]) == ("groq", None, False)
    assert doc["tokenizer"] == "tiktoken cl100k_base (LiteLLM's llama3 tokenizer is not downloaded)"
    sent = definitions({"demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}},
                       "groq/llama-3.1-8b-instant")
    import litellm

    litellm.disable_hf_tokenizer_download = True
    try:
        assert doc["tool_tokens"] == token_count("llama-3.1-8b-instant", sent)
    finally:
        litellm.disable_hf_tokenizer_download = False
    assert "rules checked: none known" in run("-m", "groq/llama-3.1-8b-instant", env=env).stdout
    assert [path for path in seen if "tokenizer" in path] == []


def test_missing_tiktoken_encoding_falls_back_to_an_estimate(tmp_path):
    """Only cl100k_base in the tiktoken cache (LiteLLM needs it to import): gpt-4o's o200k_base would be
    downloaded; the proxy points at a closed local port, so the download fails at once, and the doctor
    estimates at characters / 4 and says why."""
    import litellm

    bundled = Path(litellm.__file__).parent / "litellm_core_utils" / "tokenizers"
    cache = tmp_path / "tiktoken"
    cache.mkdir()
    shutil.copy(bundled / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4", cache)  # sha1 of cl100k_base's URL
    closed = f"http://127.0.0.1:{free_port()}"
    env = {"CUSTOM_TIKTOKEN_CACHE_DIR": str(cache), "HTTPS_PROXY": closed, "https_proxy": closed, "NO_PROXY": "",
           "no_proxy": ""}
    code, doc = report("-m", "gpt-4o", env=env)
    assert code == 0
    assert doc["tokenizer"].startswith("tiktoken o200k_base unavailable (") and doc["exact"] is False
    sent = definitions({"demo": {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}}, "gpt-4o")
    assert doc["tool_tokens"] == sum(len(json.dumps(d, separators=(",", ":"))) // 4 for d in sent)
    assert doc["servers"][0]["tool_tokens_estimated"] == len(sent)


def test_the_docs_example_is_what_doctor_prints():
    readme = (Path(__file__).resolve().parent.parent.parent / "docs" / "guides" / "cli.md").read_text()
    command = "$ mcp-litellm doctor -m gemini/gemini-2.5-flash\n"
    shown = readme[readme.index(command) + len(command):].split("```", 1)[0]
    done = run("-m", "gemini/gemini-2.5-flash")
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
