"""Pin stores on the sessions' loop: a slow store (a sync user store, a file, Redis) does not stall other
sessions; sync user stores still work (deprecated); pins sealed at rest; pins and tokens in one Redis;
pin files written before the document stores still load."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

import mcp_litellm as ml
from tests.servers.rug_pull_server import HONEST

ALL = {"read_file", "add", "notes", "pull"}
OLD_PINS = Path(__file__).with_name("data") / "pins_v1.json"  # written by FilePinStore before the document stores
KEY = "correct horse battery staple, twice"
SLOW = 1.5  # seconds the store takes
QUICK = 0.75  # an echo on another client must be back before this


def names(client: ml.Client) -> set[str]:
    return {tool.mcp_name for tool in client.tools()}


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    from tests.redis_server import running_redis

    with running_redis() as url:
        yield url


def echo_time_while(listing: Callable[[], object], other: ml.Client, started: threading.Event | None = None) -> float:
    """How long a call on ``other`` takes while ``listing`` (a slow pin check) runs in a thread."""
    other.execute_tool("add", {"a": 1, "b": 1})  # connected and listed before the clock starts
    errors: list[BaseException] = []

    def run() -> None:
        try:
            listing()
        except BaseException as exc:  # pragma: no cover - shown by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    if started is not None:
        assert started.wait(10)
    else:
        time.sleep(0.3)
    begun = time.monotonic()
    assert other.execute_tool("add", {"a": 2, "b": 3}).text == "5"
    took = time.monotonic() - begun
    thread.join(20)
    assert not thread.is_alive() and not errors, errors
    return took


class SleepyStore:
    """A user's pin store with sync methods (the deprecated form) whose reads take SLOW seconds."""

    def __init__(self) -> None:
        self.pins: dict[str, dict[str, dict[str, Any]]] = {}
        self.reading = threading.Event()
        self.threads: set[str] = set()

    def load(self, server: str) -> dict[str, dict[str, Any]] | None:
        self.threads.add(threading.current_thread().name)
        self.reading.set()
        time.sleep(SLOW)
        return self.pins.get(server)

    def save(self, server: str, pins: Mapping[str, Mapping[str, Any]]) -> None:
        self.pins[server] = {name: dict(pin) for name, pin in pins.items()}

    def servers(self) -> dict[str, dict[str, dict[str, Any]]]:
        return dict(self.pins)


def test_a_slow_sync_store_works_deprecated_and_stalls_no_other_session(make_rug: Callable[..., ml.Client]) -> None:
    store = SleepyStore()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        slow = make_rug(tool_pins=store)
    other = make_rug(name="other")
    took = echo_time_while(slow.tools, other, store.reading)
    assert took < QUICK, f"a call on another client waited {took:.2f}s for the pin store"
    [deprecated] = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert "sync methods" in str(deprecated.message) and "async def" in str(deprecated.message)
    assert set(store.pins["rug"]) == ALL  # the sync store still works: pinned on first use
    assert all(name.startswith("mcp_litellm user code") for name in store.threads), store.threads
    pulled = make_rug(pulled=True, tool_pins=store)
    assert names(pulled) == ALL - {"read_file"}


def test_an_async_user_store_is_awaited(make_rug: Callable[..., ml.Client]) -> None:
    class AsyncStore:
        def __init__(self) -> None:
            self.pins: dict[str, Any] = {}

        async def load(self, server: str) -> Any:
            await asyncio.sleep(0.01)
            return self.pins.get(server)

        async def save(self, server: str, pins: Any) -> None:
            self.pins[server] = dict(pins)

        async def servers(self) -> Any:
            return dict(self.pins)

    store = AsyncStore()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        client = make_rug(tool_pins=store)
    assert names(client) == ALL and set(store.pins["rug"]) == ALL
    assert names(make_rug(pulled=True, tool_pins=store)) == ALL - {"read_file"}


def test_a_slow_pins_file_stalls_no_other_session(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    make_rug(tool_pins=pins).tools()
    text = pins.read_text()
    pins.unlink()
    os.mkfifo(pins)  # a file whose read waits for a writer: a slow disk, a network share

    stop = threading.Event()

    def feed() -> None:  # each reader gets the pins; the first one SLOW seconds late
        time.sleep(SLOW)
        while not stop.is_set():
            try:
                with open(pins, "w", encoding="utf-8") as fifo:
                    fifo.write(text)
            except BrokenPipeError:
                pass
            time.sleep(0.1)  # the reader has read to the end before the next writer opens

    threading.Thread(target=feed, daemon=True).start()
    try:
        slow = make_rug(tool_pins=pins)
        took = echo_time_while(slow.tools, make_rug(name="other"))
        assert took < QUICK, f"a call on another client waited {took:.2f}s for the pins file"
        assert names(slow) == ALL
    finally:
        stop.set()
        os.close(os.open(pins, os.O_RDONLY | os.O_NONBLOCK))  # lets the feeder's last open return


def test_a_slow_redis_stalls_no_other_session(make_rug: Callable[..., ml.Client], redis_url: str) -> None:
    import redis

    slow = make_rug(name="paused", tool_pins=redis_url)
    other = make_rug(name="other")
    other.tools()
    with redis.Redis.from_url(redis_url) as connection:
        connection.execute_command("CLIENT", "PAUSE", int(SLOW * 1000), "ALL")  # Redis answers SLOW s late
    took = echo_time_while(slow.tools, other)
    assert took < QUICK, f"a call on another client waited {took:.2f}s for the pins in Redis"
    assert names(slow) == ALL


def test_pin_files_written_before_still_load(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    shutil.copy(OLD_PINS, pins)
    pulled = make_rug(pulled=True, tool_pins=pins)
    assert names(pulled) == ALL - {"read_file"}  # the old pins hold: the changed tool is withheld
    assert pulled.pin_tools(["read_file"]) == ["read_file"]
    data = json.loads(pins.read_text())
    assert data["format"] == 1 and set(data["servers"]["rug"]["tools"]) == ALL
    assert names(make_rug(tool_pins=pins)) == ALL - {"read_file"}  # the honest one now differs from the pin


def test_sealed_pins_cannot_be_read_without_the_key(make_rug: Callable[..., ml.Client], tmp_path: Path) -> None:
    pins = tmp_path / "pins.json"
    assert names(make_rug(tool_pins=ml.FilePinStore(pins, key=KEY))) == ALL
    raw = pins.read_text()
    assert "sealed" in json.loads(raw) and HONEST not in raw and "read_file" not in raw
    with pytest.raises(ml.ConfigError, match="is encrypted: give the key"):
        make_rug(tool_pins=pins).tools()
    with pytest.raises(ml.ConfigError, match="cannot decrypt") as wrong:
        make_rug(tool_pins=ml.FilePinStore(pins, key="another passphrase, long enough")).tools()
    assert "another passphrase" not in str(wrong.value) and KEY not in str(wrong.value)
    pins.write_text(raw.replace(raw[40:44], "AAAA"))  # altered: cannot be opened either
    with pytest.raises(ml.ConfigError, match="cannot decrypt"):
        make_rug(tool_pins=ml.FilePinStore(pins, key=KEY)).tools()


def test_plain_pins_are_sealed_at_the_next_save(make_rug: Callable[..., ml.Client], tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pins = tmp_path / "pins.json"
    shutil.copy(OLD_PINS, pins)
    monkeypatch.setenv("MCP_LITELLM_PINS_KEY", KEY)
    pulled = make_rug(pulled=True, tool_pins=pins)
    assert names(pulled) == ALL - {"read_file"}
    pulled.pin_tools()
    assert "read_file" not in pins.read_text()
    assert names(make_rug(pulled=True, tool_pins=pins)) == ALL | {"exfiltrate"}


def test_pins_and_tokens_in_one_redis(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis

    from tests.auth.oauth_server import OAuthServer, follow

    monkeypatch.setenv("MCP_LITELLM_OAUTH_DIR", str(tmp_path / "tokens"))
    monkeypatch.setenv("MCP_LITELLM_NO_BROWSER", "1")
    monkeypatch.setenv("MCP_LITELLM_TOKEN_KEY", KEY)
    monkeypatch.setenv("MCP_LITELLM_PINS_KEY", KEY)
    server = OAuthServer().start()
    try:
        config = {"url": server.url, "oauth": {"storage": redis_url, "authorize": follow}}
        with ml.Client("notes", "streamable", config, request_timeout=20, tool_pins=redis_url) as client:
            assert client.tool("add").execute({"a": 2, "b": 40}).text == "42"
        with redis.Redis.from_url(redis_url) as connection:
            values = {key.decode(): connection.get(key) for key in connection.keys("mcp-litellm:*")
                      if not key.endswith(b":lock")}
        tokens = [value for key, value in values.items() if key.startswith("mcp-litellm:oauth:")]
        assert len(tokens) == 1 and b"sealed" in tokens[0] and b"access_token" not in tokens[0]
        sealed_pins = values["mcp-litellm:pins:notes"]
        assert b"sealed" in sealed_pins and b"add" not in sealed_pins
        store = ml._client.pin_stores.RedisPinStore(redis_url)
        assert set(asyncio.run(store.servers())["notes"]) >= {"add"}  # the token key is not a server's pins
        monkeypatch.delenv("MCP_LITELLM_PINS_KEY")
        with pytest.raises(ml.ConfigError, match="encrypted"), \
                ml.Client("notes", "streamable", config, request_timeout=20, tool_pins=redis_url) as client:
            client.tools()
    finally:
        server.stop()


def test_a_key_that_cannot_be_used_says_where_it_came_from(monkeypatch, tmp_path):
    from mcp_litellm._transports.oauth.backends import sealer_for

    monkeypatch.setenv("MCP_LITELLM_TOKEN_KEY", "short")
    with pytest.raises(ml.AuthError, match="the OAuth token key in MCP_LITELLM_TOKEN_KEY cannot be used: the key is "
                                           "too short"):
        sealer_for(None)
    with pytest.raises(ml.ConfigError, match=r"the tool pins key in key= cannot be used: the key is too short"):
        ml.FilePinStore(tmp_path / "pins.json", key="short")
    monkeypatch.setenv("MCP_LITELLM_PINS_KEY", "also-short")
    with pytest.raises(ml.ConfigError, match="the tool pins key in MCP_LITELLM_PINS_KEY cannot be used"):
        ml.FilePinStore(tmp_path / "pins.json")
