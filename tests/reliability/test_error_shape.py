"""What a user sees of our errors: no secret anywhere in ``traceback.format_exception`` (the chained
exceptions included), a refused connection that names the URL and what to check, and tracebacks that
show the user's call and our message rather than dozens of frames inside the SDK, anyio and httpx.
Real servers: the fixture server over streamable HTTP, legacy SSE and stdio; a port nothing listens on."""

from __future__ import annotations

import asyncio
import sys
import traceback

import pytest

import mcp_litellm as ml
from tests.helpers.servers import FIXTURE_SERVER, free_port

SECRET = "sekrit-" + "4d3c2b1a" * 2
INTERNALS = ("site-packages/mcp/", "site-packages/anyio/", "site-packages/httpx2/", "site-packages/httpcore2/",
             "concurrent/futures", "During handling of the above exception")


def shown(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


@pytest.mark.parametrize(("transport", "path"), [("sse", "/wrong"), ("streamable", "/wrong"),
                                                 ("sse", "/sse"), ("streamable", "/mcp")])
def test_a_secret_in_the_url_shows_nowhere_in_the_traceback(fixture_http, transport, path):
    """The legacy SSE client raises httpx's HTTPStatusError, whose message holds the whole URL."""
    base = fixture_http["sse" if transport == "sse" else "streamable-http"].rsplit("/", 1)[0]
    if path in ("/sse", "/mcp"):  # nothing listens there: a refused connection
        base = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(ml.TransportError) as info:
        ml.client("secretive", transport, {"url": f"{base}{path}?api_key={SECRET}"}, request_timeout=20)
    text = shown(info.value)
    assert "api_key=***" in text
    assert SECRET not in text, text
    assert SECRET not in repr(info.value.__cause__)
    assert f"'secretive' at {base}{path}?api_key=***" in str(info.value), str(info.value)  # where, masked


@pytest.mark.parametrize("transport", ["streamable", "sse"])
def test_a_refused_connection_names_the_url_and_what_to_check(transport):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp?token={SECRET}"
    with pytest.raises(ml.TransportError) as info:
        ml.client("nowhere", transport, {"url": url}, request_timeout=20)
    message = str(info.value)
    assert f"'nowhere' at http://127.0.0.1:{port}/mcp?token=***" in message, message
    assert f"nothing accepted the connection on 127.0.0.1 port {port}" in message, message
    assert "check that the server is running" in message and "'url'" in message, message
    assert SECRET not in message
    assert info.value.http_status is None


def test_an_unknown_host_says_so():
    with pytest.raises(ml.TransportError) as info:
        ml.client("nowhere", "streamable", {"url": "http://no-such-host.invalid/mcp"}, request_timeout=20)
    assert "http://no-such-host.invalid/mcp" in str(info.value)
    assert "the host name 'no-such-host.invalid' could not be resolved" in str(info.value), str(info.value)


def test_a_timeout_traceback_is_the_users_call_and_our_message(make_client):
    client = make_client("stdio", request_timeout=30)
    with pytest.raises(ml.RequestTimeoutError) as info:
        client.execute_tool("slow", {"seconds": 10, "steps": 1}, timeout=1)
    text = shown(info.value)
    lines = text.splitlines()
    assert lines[-1] == "mcp_litellm.RequestTimeoutError: tools/call on server 'fixture' timed out after 1.0s; " \
                        "it was cancelled", text
    assert len(lines) <= 16, text
    assert "test_error_shape.py" in text  # the user's own call is there
    assert not [internal for internal in INTERNALS if internal in text], text
    assert info.value.__cause__ is None and info.value.__suppress_context__
    assert lines[-2].strip() == "raise plain_traceback(error)", text  # the last line of ours: no lint note


def test_an_async_timeout_traceback_is_as_short():
    async def main() -> BaseException:
        client = ml.Client("fixture", "stdio", {"command": sys.executable, "args": [str(FIXTURE_SERVER)]},
                           request_timeout=30, start=False)
        await client.astart()
        try:
            await client.aexecute_tool("slow", {"seconds": 10, "steps": 1}, timeout=1)
        except ml.TimeoutError as error:
            return error
        finally:
            await client.astop()
        raise AssertionError("no timeout")

    text = shown(asyncio.run(main()))
    assert len(text.splitlines()) <= 16, text
    assert not [internal for internal in INTERNALS if internal in text], text


def test_a_transport_failure_keeps_its_cause_without_internal_frames():
    with pytest.raises(ml.TransportError) as info:
        ml.client("nowhere", "streamable", {"url": f"http://127.0.0.1:{free_port()}/mcp"}, request_timeout=20)
    cause = info.value.__cause__
    assert type(cause).__name__ == "ConnectError"  # still there for code that inspects it
    text = shown(info.value)
    assert len(text.splitlines()) <= 30, text
    assert not [internal for internal in INTERNALS if internal in text], text
    assert "ExceptionGroup" not in text, text


def _model_failure(call) -> str:
    try:
        call()
    except Exception as error:
        return shown(error)
    raise AssertionError("the model request did not fail")


def test_a_failed_model_request_shows_litellms_frames_not_ours():
    """LiteLLM's exception goes from the user's call straight to LiteLLM's frames: the frames it passed
    through in mcp_litellm (the chat, the tool loop, the thread hand-over) are left out, so the traceback is
    no longer than LiteLLM's own for the same request (the chat's requests are async: litellm.acompletion)."""
    import litellm

    settings = {"api_base": f"http://127.0.0.1:{free_port()}/v1", "api_key": "sk-test", "num_retries": 0}
    ours = _model_failure(lambda: ml.Chat("openai/gpt-4o-mini", **settings).ask("hi"))
    theirs = _model_failure(lambda: asyncio.run(litellm.acompletion(
        model="openai/gpt-4o-mini", messages=[{"role": "user", "content": "hi"}], **settings)))
    last = ours[ours.rindex("Traceback (most recent call last):"):]  # the exception itself, after its causes
    frames = [line.strip() for line in last.splitlines() if line.strip().startswith("File ")]
    at = next(i for i, frame in enumerate(frames) if frame.endswith("in run_sync"))
    assert "test_error_shape.py" in frames[at - 2] and frames[at - 1].endswith("in ask"), last  # the user's call
    assert "site-packages/litellm/" in frames[at + 1], last  # then LiteLLM's own frames
    assert not [f for f in frames[at + 1:] if "mcp_litellm" in f], last
    assert "concurrent/futures" not in ours, ours
    assert len(ours.splitlines()) <= len(theirs.splitlines()), (len(ours.splitlines()), len(theirs.splitlines()))
