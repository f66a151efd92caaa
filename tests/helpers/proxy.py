"""A running LiteLLM Proxy as the proxy tests see it (started by the ``litellm_proxy`` fixture in
tests/proxy/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.scripted_llm.server import FakeLLM


@dataclass
class Proxy:
    url: str
    key: str
    alias: str
    config: Path
    llm: FakeLLM
    log: Path

    @property
    def mcp_url(self) -> str:
        return f"{self.url}/mcp"

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"
