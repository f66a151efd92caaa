"""Semantic tool search: tools and requests embedded with a model the user configures, through LiteLLM
(``litellm.aembedding``), and their cosine similarity fused with the lexical scores (:func:`fuse_scores`:
each ranking's scores brought to 0..1 over the catalog, the words weighing :data:`WORDS_SHARE`). Over the
benchmark's tuning requests this beat reciprocal rank fusion (:func:`fuse`, kept for rankers that give an
order only) and either ranking alone.

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
import operator
import re
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence

from mcp_litellm import _llm
from mcp_litellm._chat.tool_search.index import Entry, lead_sentence, rank
from mcp_litellm._core.errors import ConfigError

logger = logging.getLogger("mcp_litellm.chat")

BATCH = 256  # texts per embedding request
RRF_K = 10  # reciprocal rank fusion: an entry scores the sum of weight / (RRF_K + rank) over the rankings
WORDS_WEIGHT = 2.0  # the lexical ranking's weight in the reciprocal rank fusion (the embedding's is 1)
WORDS_SHARE = 0.6
"""The lexical scores' share of a fused score (the embedding's: the rest), both brought to 0..1 over the
catalog: chosen on the benchmark's tuning requests (the mean over the tuning sets of top-1 and top-5 rates;
0.5 to 0.8 about as good)."""
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
    """The text embedded for one tool, as written (no accent folding, no splitting of scripts: the model reads
    text): its name in words (``create_workbook`` -> "create workbook"), its server, and its description's
    first sentence. Over the benchmark's tuning requests this short text did as well as the whole description
    or better (the later sentences are about arguments and details, which a request rarely names)."""
    name = _NAME_PARTS.sub(" ", _CAMEL.sub(" ", entry.name)).strip()
    where = f" ({entry.server})" if entry.server else ""
    return f"{name}{where}: {lead_sentence(description)}".strip()


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NAME_PARTS = re.compile(r"[_\-.\s]+")


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
        scores = await self.similarities(entries, texts, query, server)
        if scores is None:
            return None
        return rank(entries, [max(s, 1e-9) if s > 0 else 0.0 for s in scores], limit, floor=0.0)

    async def similarities(self, entries: Sequence[Entry], texts: Sequence[str], query: str,
                           server: str | None = None) -> list[float] | None:
        """The cosine similarity of each entry's text to ``query`` (0 for the entries of other servers than
        ``server``, if given), or ``None`` when the embedding model could not be used."""
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
        asked = _unit(asked)  # the tools' vectors are kept as unit vectors: a dot product is their cosine
        return [sum(map(operator.mul, asked, v)) if server is None or e.server == server else 0.0
                for e, v in zip(entries, vectors, strict=True)]

    async def _vectors(self, texts: Sequence[str]) -> list[list[float]]:
        keys = [self._key(t) for t in texts]
        known = {k: _VECTORS[k] for k in keys if k in _VECTORS}  # held here: another chat may evict meanwhile
        for key in known:
            _VECTORS.move_to_end(key)
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in known))
        for start in range(0, len(missing), BATCH):
            batch = missing[start:start + BATCH]
            for text, vector in zip(batch, await self._embed(batch), strict=True):
                known[self._key(text)] = _VECTORS[self._key(text)] = _unit(vector)
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


def fuse_scores(entries: Sequence[Entry], by_words: Sequence[float], by_meaning: Sequence[float], limit: int,
                server: str | None = None) -> list[Entry]:
    """The ``limit`` best entries (of ``server`` only, if given) by their fused score: the lexical score over
    the best one, times :data:`WORDS_SHARE`, plus the similarity brought to 0..1 between the catalog's least
    and most similar tools, times the rest. A tool both find ranks high; one only the embedding finds still
    appears (a request in none of the tools' words), and a word match the model finds far off sinks."""
    kept = [i for i, e in enumerate(entries) if server is None or e.server == server]
    if not kept:
        return []
    best_words = max(by_words[i] for i in kept)
    low, high = min(by_meaning[i] for i in kept), max(by_meaning[i] for i in kept)
    spread = high - low
    fused = [0.0] * len(entries)
    for i in kept:
        words = by_words[i] / best_words if best_words > 0 else 0.0
        meaning = (by_meaning[i] - low) / spread if spread > 0 else 0.0
        fused[i] = WORDS_SHARE * words + (1 - WORDS_SHARE) * meaning
    return rank(entries, fused, limit, floor=0.0)


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


def _unit(vector: Sequence[float]) -> list[float]:
    """``vector`` scaled to length 1 (a zero vector stays as it is)."""
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector] if norm else list(vector)
