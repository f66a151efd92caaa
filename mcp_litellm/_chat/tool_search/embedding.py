"""Semantic tool search: tools and requests embedded with a model the user configures, through LiteLLM
(``litellm.aembedding``), ranked by cosine similarity and fused with the lexical ranking (reciprocal
rank fusion: over the benchmark's tuning requests, fused beat either ranking alone).

Each tool's vector is cached by the embedding model and the tool's text (name, server, description and
parameter names), in this process, so a catalog is embedded once however many chats and searches use it;
only the request is embedded per search. When the embedding call fails (no endpoint, no key, a
provider error, no answer within 10 s), the search falls back to the lexical index for a minute before
trying again, and says so in the log once per failure kind, without the request's parameters.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from mcp_litellm import _llm
from mcp_litellm._chat.tool_search.index import Entry, rank
from mcp_litellm._core.errors import ConfigError

logger = logging.getLogger("mcp_litellm.chat")

BATCH = 256  # texts per embedding request
FUSED = 50  # candidates each ranking gives the fusion
RRF_K = 10  # reciprocal rank fusion: an entry scores the sum of weight / (RRF_K + rank) over the rankings
WORDS_WEIGHT = 2.0  # the lexical ranking's weight in the fusion (the embedding's is 1)
TIMEOUT = 10.0  # seconds an embedding request may take, unless the settings say otherwise
PAUSE = 60.0  # after a failure, seconds the words rank alone before the embedding model is tried again
CACHE_SIZE = 50_000  # tool vectors kept in this process (least recently used dropped first)
_VECTORS: OrderedDict[str, list[float]] = OrderedDict()


EmbeddingSettings = Mapping[str, object]
"""``litellm.aembedding`` keyword arguments, a ``"model"`` among them."""


def embedding_settings(value: object) -> dict[str, object] | None:
    """``tool_search_embedding`` as ``litellm.aembedding`` keyword arguments (``None``: no embedding)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        return {"model": value}
    if isinstance(value, Mapping) and isinstance(value.get("model"), str) and value["model"].strip():
        for reserved in ("input",):
            if reserved in value:
                raise ConfigError(f"tool_search_embedding: {reserved!r} is set by the search; leave it out")
        return dict(value)
    raise ConfigError("tool_search_embedding must be an embedding model name (e.g. "
                      "'openai/text-embedding-3-small') or a dict of litellm.aembedding arguments with a "
                      f"'model', got {type(value).__name__}")


def tool_text(entry: Entry, description: str) -> str:
    """The text embedded for one tool."""
    where = f" (server {entry.server})" if entry.server else ""
    return f"{entry.name}{where}: {description}".strip()


class EmbeddingRanker:
    """Ranks :class:`Entry` objects by the cosine similarity of their embedded text to a request's."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings: dict[str, object] = {"timeout": TIMEOUT, **settings}
        self.model = str(settings["model"])
        self._failed: set[str] = set()
        self._paused_until = 0.0

    def __repr__(self) -> str:  # the settings may hold an api_key: name the model only
        return f"<EmbeddingRanker model={self.model!r}>"

    async def search(self, entries: Sequence[Entry], texts: Sequence[str], query: str, limit: int,
                     server: str | None = None) -> list[Entry] | None:
        """The ``limit`` entries nearest to ``query`` (of ``server`` only, if given), or ``None`` when the
        embedding model could not be used (the caller then ranks lexically)."""
        if time.monotonic() < self._paused_until:
            return None
        try:
            vectors = await self._vectors(texts)
            (asked,) = await self._embed([query])
        except Exception as exc:  # any provider failure: the lexical ranking answers instead
            self._paused_until = time.monotonic() + PAUSE  # a down endpoint costs one request a minute
            kind = type(exc).__name__
            if kind not in self._failed:
                self._failed.add(kind)
                logger.warning("tool search: the embedding model %r failed (%s); ranking by words instead",
                               self.model, kind)
            return None
        scores = [_cosine(asked, v) if server is None or e.server == server else 0.0
                  for e, v in zip(entries, vectors, strict=True)]
        return rank(entries, [max(s, 1e-9) if s > 0 else 0.0 for s in scores], limit, floor=0.0)

    async def _vectors(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        known = {k: _VECTORS[k] for k in keys if k in _VECTORS}  # held here: another chat may evict meanwhile
        for key in known:
            _VECTORS.move_to_end(key)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in known))
        for start in range(0, len(missing), BATCH):
            batch = missing[start:start + BATCH]
            for text, vector in zip(batch, await self._embed(batch), strict=True):
                known[self._key(text)] = _VECTORS[self._key(text)] = vector
        while len(_VECTORS) > CACHE_SIZE:
            _VECTORS.popitem(last=False)
        return [known[k] for k in keys]

    async def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        response = await _llm.aembedding(**{**self.settings, "input": list(texts)})
        data = sorted(response.data, key=lambda d: d["index"] if isinstance(d, Mapping) else d.index)
        vectors = [list(d["embedding"] if isinstance(d, Mapping) else d.embedding) for d in data]
        if len(vectors) != len(texts):
            raise ValueError(f"the embedding model returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model}\0{text}".encode()).hexdigest()


def fuse(by_words: Sequence[Entry], by_meaning: Sequence[Entry], limit: int) -> list[Entry]:
    """Reciprocal rank fusion of the two rankings, best first. A tool both find ranks high; one that
    only the embedding finds still appears (a request in none of the tools' words)."""
    scores: dict[tuple[str, str], float] = {}
    entries: dict[tuple[str, str], Entry] = {}
    for weight, ranking in ((WORDS_WEIGHT, by_words), (1.0, by_meaning)):
        for place, found in enumerate(ranking):
            key = (found.server, found.name)
            entries[key] = found
            scores[key] = scores.get(key, 0.0) + weight / (RRF_K + place)
    return [entries[key] for key in sorted(scores, key=lambda k: (-scores[k], k))[:limit]]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
