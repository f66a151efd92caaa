"""MCP Apps in a real browser: examples/web_app.py under uvicorn, the apps test server (tests/helpers/apps_server.py)
over stdio, a model scripted at the HTTP level, and Debian's chromium driven by Playwright (no browser download).

The page asks, the model calls ``show_counter``, the app (tests/helpers/apps_ui/counter.html) renders in its
sandboxed iframe with the tool's result, its "+1" button calls the app-only tool ``increment`` through the page and
``ml.AppBridge``, and the server's answer reaches the app and the page. Without chromium or Playwright these tests
skip; under CI (``CI`` set, as .ci/run does) they fail instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.helpers.processes import interrupt
from tests.helpers.servers import ROOT, free_port, wait_for_port
from tests.scripted_llm.server import FakeLLM, Turn, fake_llm

CHROMIUM = os.environ.get("MCP_LITELLM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOT = ROOT / "docs" / "img" / "mcp-apps.png"  # refreshed with MCP_LITELLM_UPDATE_SCREENSHOT=1
TIMEOUT_MS = 15_000


def answer(body: dict[str, Any]) -> Turn:
    """The scripted model: "counter from N" calls show_counter; after a tool, a sentence; else it echoes."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return Turn(content="Here is your counter.")
    text = last["content"] if isinstance(last["content"], str) else json.dumps(last["content"])
    start = re.search(r"counter from (-?\d+)", text)
    if start:
        return Turn(tool_calls=[(f"call-{start[1]}", "show_counter", {"start": int(start[1])})])
    return Turn(content=f"Noted: {text}")


@pytest.fixture(scope="module")
def web_app() -> Iterator[tuple[str, FakeLLM]]:
    """examples/web_app.py on 127.0.0.1 with the apps test server and the scripted model."""
    with fake_llm([], respond=answer) as llm:
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "WEB_APP_MODEL": "openai/gpt-4o-mini", "WEB_APP_API_BASE": llm.url, "WEB_APP_API_KEY": "sk-example",
               "WEB_APP_SERVER": f"{sys.executable} -m tests.helpers.apps_server"}
        process = subprocess.Popen([sys.executable, "-m", "uvicorn", "examples.web_app:app", "--host", "127.0.0.1",
                                    "--port", str(port)], cwd=ROOT, env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_for_port(port, process, timeout=60)
            yield f"http://127.0.0.1:{port}", llm
        finally:
            interrupt(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless chromium from the system (skipped without it, failed under CI)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "Playwright for Python is not installed (pip install playwright)"
    if missing is None and not os.access(CHROMIUM, os.X_OK):
        missing = f"no chromium at {CHROMIUM} (apt-get install -y chromium)"
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; .ci/run installs it, so under CI this is an error")
        pytest.skip(f"{missing}: the MCP Apps browser tests need it")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any, web_app: tuple[str, FakeLLM]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 900, "height": 380})
    opened = context.new_page()
    opened.set_default_timeout(TIMEOUT_MS)
    opened.goto(web_app[0] + "/")
    yield opened
    context.close()


def ask(page: Any, text: str) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")


def test_the_app_renders_where_the_tool_ran_and_its_button_calls_the_server(page, web_app, tmp_path):
    llm = web_app[1]
    before = len(llm.requests)
    ask(page, "show me a counter from 41")
    app = page.frame_locator("iframe.mcp-app")
    app.locator("#count").filter(has_text="41").wait_for()  # the tool's result, from ui/notifications/tool-result
    page.locator(".assistant", has_text="Here is your counter.").wait_for()

    iframe = page.locator("iframe.mcp-app")
    assert iframe.get_attribute("sandbox") == "allow-scripts"  # no allow-same-origin: an opaque origin
    before_scripts = (iframe.get_attribute("srcdoc") or "").split("<script", 1)[0]  # the CSP comes first
    assert 'http-equiv="Content-Security-Policy"' in before_scripts and "connect-src 'none'" in before_scripts
    assert iframe.get_attribute("data-tool-call-id") == "call-41"
    # the app sits right after the tool's line in the chat
    assert page.locator(".tool + .app iframe.mcp-app").count() == 1

    rpc: list[dict[str, Any]] = []
    page.on("request", lambda request: rpc.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/apps/rpc") else None)
    app.locator("#increment").click()
    app.locator("#count").filter(has_text="42").wait_for()  # the server's answer, shown by the app
    page.locator(".app-activity", has_text="increment").wait_for()  # and by the page
    assert [r["request"]["method"] for r in rpc] == ["tools/call"]
    assert rpc[0]["request"]["params"] == {"name": "increment", "arguments": {"value": 41}}
    assert rpc[0]["app"]["toolCallId"] == "call-41"

    # the app-only tool never reached the model; no request went to the model for the click
    offered = {tool["function"]["name"] for request in llm.requests[before:] for tool in request.get("tools", [])}
    assert "show_counter" in offered and "increment" not in offered
    assert len(llm.requests) == before + 2

    shot = tmp_path / "mcp-apps.png"
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot}")
    if os.environ.get("MCP_LITELLM_UPDATE_SCREENSHOT"):
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)


def test_the_apps_message_goes_into_the_chat(page, web_app):
    llm = web_app[1]
    ask(page, "show me a counter from 7")
    app = page.frame_locator("iframe.mcp-app")
    app.locator("#count").filter(has_text="7").wait_for()
    app.locator("#tell").click()  # ui/message: the page sends it as the user's next message
    page.locator(".user", has_text="The counter is at 7.").wait_for()
    page.locator(".assistant", has_text="Noted: The counter is at 7.").wait_for()
    app.locator("#status", has_text="sent to the chat").wait_for()
    assert any(r["messages"][-1]["content"] == "The counter is at 7." for r in llm.requests)


def test_a_hostile_app_or_window_gets_nothing_done(page, web_app):
    ask(page, "show me a counter from 1")
    app = page.frame_locator("iframe.mcp-app")
    app.locator("#count").filter(has_text="1").wait_for()
    rpc: list[dict[str, Any]] = []
    page.on("request", lambda request: rpc.append(json.loads(request.post_data or "{}"))
            if request.url.endswith("/apps/rpc") else None)
    frame = next(f for f in page.frames if f.parent_frame is not None)

    def from_app(method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request from inside the app's iframe and return the host's answer."""
        return frame.evaluate("""([method, params]) => new Promise((resolve) => {
            const id = "probe-" + Math.random();
            addEventListener("message", function listener(event) {
                if (event.data && event.data.id === id) {
                    removeEventListener("message", listener);
                    resolve(event.data);
                }
            });
            parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
        })""", [method, params])

    # a tool the app may not call (not an app tool of its server): a JSON-RPC error, nothing runs
    refused = from_app("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert refused["error"]["message"] and "result" not in refused
    # a method the host does not offer
    assert from_app("sampling/createMessage", {})["error"]["code"] == -32601
    assert from_app("ping", {})["result"] == {}
    # the CSP the host set (no connectDomains): the app cannot reach the network, not even the page's server
    blocked = frame.evaluate("""(url) => new Promise((resolve) => {
        document.addEventListener("securitypolicyviolation", (e) => resolve("blocked by " + e.effectiveDirective));
        fetch(url).then(() => resolve("fetched"), () => setTimeout(() => resolve("failed, no CSP violation"), 500));
    })""", web_app[0] + "/tools")
    assert blocked == "blocked by connect-src"
    # a window that is not the app's iframe (the page itself, another frame) is ignored
    page.evaluate("""() => {
        const call = {name: "increment", arguments: {value: 1}};
        postMessage({jsonrpc: "2.0", id: 1, method: "tools/call", params: call}, "*");
        const other = document.createElement("iframe");
        other.srcdoc = '<script>parent.postMessage({jsonrpc: "2.0", id: 2, method: "tools/call", ' +
                       'params: {name: "increment", arguments: {value: 2}}}, "*")<' + '/script>';
        document.body.appendChild(other);
    }""")
    page.wait_for_timeout(300)
    assert [r["request"]["params"].get("name") for r in rpc] == ["no_such_tool"]  # only the app's own request


def test_the_backend_routes_without_a_browser(web_app):
    """/apps/ui gives the app's HTML and metadata; /apps/rpc answers through ml.AppBridge."""
    url, _ = web_app
    view = {"toolCallId": "call-x", "server": "demo", "tool": "show_counter", "resourceUri": "ui://counter/app.html",
            "input": {"start": 3}}
    with httpx.Client(base_url=url, timeout=30) as http:
        ui = http.post("/apps/ui", json={"app": view}).json()
        assert ui["uri"] == "ui://counter/app.html" and ui["mimeType"] == "text/html;profile=mcp-app"
        assert 'id="increment"' in ui["html"]
        call = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "increment",
                                                                            "arguments": {"value": 3}}}
        answered = http.post("/apps/rpc", json={"app": view, "request": call}).json()
        assert answered["id"] == 5 and "4" in json.dumps(answered["result"])
        unknown = {"jsonrpc": "2.0", "id": 6, "method": "ui/unknown", "params": {}}
        assert http.post("/apps/rpc", json={"app": view, "request": unknown}).json()["error"]["code"] == -32601
        assert http.get("/mcp_apps_host.js").headers["content-type"].startswith("text/javascript")
        assert "McpAppHost" in http.get("/").text
        names = http.get("/tools").json()
        assert "show_counter" in names and "increment" not in names  # the model's tools, not the app's alone
