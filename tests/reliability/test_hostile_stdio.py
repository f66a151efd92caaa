"""Issue 14: a stdio server that sends invalid UTF-8, spawns workers, dies while a child holds its stdout,
writes huge lines to stdout or stderr, stops reading, or answers with malformed envelopes.

Each test runs a real misbehaving server process (tests/servers/hostile_stdio_server.py) and failed
against the SDK's stdio client before our own transport replaced it. No test relies on a timing margin
under a second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import mcp_litellm as ml
from mcp_litellm._transports.wire.framing import SCAN_TOKENS, LineFramer, Oversized
from tests.helpers.processes import alive, call_in_thread, wait_dead

HOSTILE = Path(__file__).resolve().parent.parent / "servers" / "hostile_stdio_server.py"


def hostile(mode: str, tmp_path: Path | None = None, **kwargs: object) -> ml.Client:
    env = {"HOSTILE_PIDFILE": str(tmp_path / "pids")} if tmp_path is not None else None
    config: dict[str, object] = {"command": sys.executable, "args": [str(HOSTILE), mode]}
    if env:
        config["env"] = env
    return ml.client(f"hostile-{mode}", "stdio", config, protocol="legacy", **kwargs)  # type: ignore[arg-type]


def pids(tmp_path: Path) -> tuple[int, int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        lines = (tmp_path / "pids").read_text().split() if (tmp_path / "pids").exists() else []
        if len(lines) == 2:
            return int(lines[0]), int(lines[1])
        time.sleep(0.05)
    raise AssertionError("the server never wrote its pids")


def test_invalid_utf8_lines_are_skipped_and_the_session_keeps_answering(caplog):
    client = hostile("badutf8", request_timeout=5)
    try:
        started = time.monotonic()
        assert [client.execute_tool("run", {"a": i}).text for i in range(3)] == ["ran 0", "ran 1", "ran 2"]
        assert time.monotonic() - started < 5, "no call may wait out its timeout"
        assert client.is_alive() and client.ping()
    finally:
        client.stop()
    assert any("not valid UTF-8" in r.getMessage() for r in caplog.records if r.name == "mcp_litellm.stdio")


def test_workers_a_server_started_do_not_outlive_stop(tmp_path):
    client = hostile("spawn", tmp_path, request_timeout=5)
    server, worker = pids(tmp_path)
    assert alive(server) and alive(worker)
    client.stop()
    assert wait_dead(server, 5), "the server itself is gone"
    assert wait_dead(worker, 5), "the worker the server started was ended with it (its process group)"


def test_workers_do_not_outlive_the_interpreter(tmp_path):
    program = textwrap.dedent(f"""
        import sys
        import mcp_litellm as ml
        client = ml.client("spawner", "stdio", {{"command": sys.executable, "args": [{str(HOSTILE)!r}, "spawn"],
                           "env": {{"HOSTILE_PIDFILE": {str(tmp_path / "pids")!r}}}}}, protocol="legacy")
        print(client.execute_tool("run", {{"a": 7}}).text, flush=True)
        # exits without stop(): the interpreter's exit must end the server and its worker
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran 7"
    server, worker = pids(tmp_path)
    assert wait_dead(server, 5) and wait_dead(worker, 5)


def test_a_killed_server_whose_child_holds_stdout_fails_pending_calls_within_a_second(tmp_path):
    client = hostile("holdout", tmp_path, request_timeout=30)
    server, worker = pids(tmp_path)
    try:
        caller, outcome = call_in_thread(client, "run", {"a": 1})
        time.sleep(0.3)
        assert "error" not in outcome and "result" not in outcome, "the call is pending (the server never answers)"
        os.kill(server, signal.SIGKILL)
        killed = time.monotonic()
        caller.join(10)
        assert not caller.is_alive(), "the pending call ended"
        assert isinstance(outcome.get("error"), ml.TransportError), outcome
        assert outcome["at"] - killed < 2.0, "it failed soon after the exit, not at its 30 s timeout"
        assert not client.is_alive()
        assert wait_dead(worker, 5), "the ended session also ended what the dead server left behind"
    finally:
        client.stop()


def test_framing_is_linear_in_the_line_length():
    framer = LineFramer(limit=1 << 30)
    chunk = b"x" * 65536
    started = time.process_time()
    for _ in range(80 * 16):  # 80 MiB, one line, in pipe-sized chunks (the SDK took 36 s for 80 MB)
        assert framer.feed(chunk) == []
    (line,) = framer.feed(b"\n")
    assert isinstance(line, bytes) and len(line) == 80 * 1024 * 1024
    assert time.process_time() - started < 10


def test_framing_drops_a_line_past_the_limit_and_keeps_its_head():
    framer = LineFramer(limit=1000)
    line = b'{"jsonrpc": "2.0", "id": 7, "result": "' + b"a" * 5000 + b'"}'
    frames = framer.feed(line[:700]) + framer.feed(line[700:] + b"\nnext\n")
    assert isinstance(frames[0], Oversized) and frames[0].size == len(line)
    assert frames[0].head == line[:512]
    assert frames[1] == b"next"


@pytest.mark.parametrize(("line", "found"), [
    (b'{"jsonrpc":"2.0","result":{"id":1,"x":["]}",{"id":2}]},"id":"r\\"7","pad":"' + b"p" * 2000 + b'"}', b'"r\\"7"'),
    (b'{"result": "' + b"a\\\\" * 1000 + b'", "id" : 42 , "pad": [' + b"1," * 1000 + b'1]}', b"42"),
    (b'{"method":"sampling/createMessage","params":{"x":"' + b"a" * 3000 + b'"},"id":5,"p":"' + b"p" * 600 + b'"}',
     None),
    (b'{"jsonrpc":"2.0","result":{"content":[' + b'{"id":3},' * 500 + b'{}]}, "pad": "' + b"p" * 600 + b'"}', None),
])
@pytest.mark.parametrize("piece", [1, 7, 4096])
def test_framing_finds_the_top_level_id_of_a_dropped_line_anywhere(line, found, piece):
    framer = LineFramer(limit=1024, scan_ids=True)
    frames = [frame for i in range(0, len(line), piece) for frame in framer.feed(line[i:i + piece])]
    frames += framer.feed(b"\n")
    assert len(frames) == 1 and isinstance(frames[0], Oversized)
    assert frames[0].member_id == found


def test_the_id_scan_of_a_dropped_line_is_bounded():
    framer = LineFramer(limit=1024, scan_ids=True)
    started = time.process_time()
    framer.feed(b'{"result":' + b"[" * (SCAN_TOKENS + 10))
    framer.feed(b"]" * (SCAN_TOKENS + 10) + b',"id":3}\n')
    assert time.process_time() - started < 10


def test_a_48_mb_result_arrives_whole_and_promptly():
    client = hostile("huge", request_timeout=60)
    try:
        started = time.monotonic()
        result = client.execute_tool("run", {"size": 48_000_000})
        assert len(result.text) == 48_000_000
        assert time.monotonic() - started < 15, "the SDK's quadratic reader took 17 s for 48 MB"
    finally:
        client.stop()


def test_a_message_past_max_message_size_fails_its_call_clearly_and_the_session_survives():
    client = hostile("huge", request_timeout=30, max_message_size=1_000_000)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match=r"2000\d+ bytes, more than max_message_size \(1000000 bytes\)"):
            client.execute_tool("run", {"size": 2_000_000})
        assert time.monotonic() - started < 10, "failed at once, not at the 30 s timeout"
        assert client.is_alive()
        assert client.execute_tool("run", {"size": 10}).text == "z" * 10
    finally:
        client.stop()


def test_an_oversized_answer_with_its_id_in_the_middle_fails_its_call_at_once():
    client = hostile("hugemiddle", request_timeout=30, max_message_size=1_000_000)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match=r"more than max_message_size \(1000000 bytes\)"):
            client.execute_tool("run", {"size": 2_000_000})
        assert time.monotonic() - started < 10, "it waited for its 30 s timeout before the id scan"
        assert client.is_alive()
        assert "z" * 10 in client.execute_tool("run", {"size": 10}).text
    finally:
        client.stop()


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_huge_stderr_lines_keep_only_a_bounded_tail(caplog):
    caplog.set_level("INFO", logger="mcp_litellm.server")
    client = hostile("stderrflood", request_timeout=60)
    try:
        before = rss_mb()
        assert client.execute_tool("run", {"a": 3, "size": 50_000_000}).text == "ran 3"
        time.sleep(1.0)  # let the stderr reader catch up
        grown = rss_mb() - before
        assert grown < 60, f"RSS grew {grown:.0f} MB for 150 MB of stderr (kept whole, it was +367 MB for 300 MB)"
    finally:
        client.stop()
    flood = [r.getMessage() for r in caplog.records if r.name == "mcp_litellm.server" and "eeee" in r.getMessage()]
    assert flood and all(len(m) < 20_000 for m in flood), "each logged line is bounded"
    assert "50000000 bytes in all" in flood[0]


def test_a_server_that_stops_reading_cannot_stretch_a_call_past_its_deadline():
    client = hostile("deaf", request_timeout=30)
    try:
        big = {"a": 1, "size": 0, "pad": "p" * 400_000}  # fills the pipe the server no longer reads
        started = time.monotonic()
        with pytest.raises(ml.TimeoutError):
            client.execute_tool("run", big, timeout=3)
        assert time.monotonic() - started < 4.5, "timeout=3 returned after 8 s with the SDK's transport"
        started = time.monotonic()
        assert client.ping(timeout=2) is False
        assert time.monotonic() - started < 3.5, "ping(timeout=2) returned after 7 s with the SDK's transport"
    finally:
        client.stop()


@pytest.mark.parametrize(("a", "what"), [(1, "result"), (2, "error.code")])
def test_a_malformed_answer_fails_its_call_at_once(a, what):
    client = hostile("malformed", request_timeout=30)
    try:
        started = time.monotonic()
        with pytest.raises(ml.ServerError, match="malformed") as info:
            client.execute_tool("run", {"a": a})
        assert time.monotonic() - started < 5, "failed at once, not at the 30 s timeout"
        assert "cancelled" not in str(info.value)
        assert client.is_alive() and client.ping()
    finally:
        client.stop()


def test_secrets_are_masked_in_debug_tracebacks_and_in_errors(caplog):
    """A URL's ?api_key= in a DEBUG traceback, and a header value a server quotes back, never show."""
    import logging

    from tests.helpers.servers import free_port

    caplog.set_level(logging.DEBUG)
    key, token = "qk-1234567890abcdef", "hdr-secret-0987654321"
    url = f"http://127.0.0.1:{free_port()}/mcp?api_key={key}"
    with pytest.raises(ml.TransportError) as info:
        ml.client("down", "streamable", {"url": url, "headers": {"Authorization": f"Bearer {token}"}},
                  request_timeout=5)
    logging.getLogger("mcp_litellm").debug("quoting the server: bad token %s at %s", token, url)
    try:
        raise RuntimeError(f"server said: token {token} rejected for {url}")
    except RuntimeError:
        logging.getLogger("mcp.client.streamable_http").debug("request failed", exc_info=True)
    quoted = ml.ServerError(-32000, f"invalid credentials {token}")
    shown = caplog.text + str(info.value) + str(quoted) + quoted.message
    assert "request failed" in caplog.text and "Traceback" in caplog.text and "***" in caplog.text
    assert key not in shown and token not in shown
