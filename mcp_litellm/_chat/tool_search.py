"""Tool search: a lexical index over a chat's tools, and the ``search_tools`` tool the model calls.

When a chat holds more tools than fit its budget, the model gets a small catalog instead of every
definition: ``search_tools`` (one string argument ``query``) plus the tools it already found or used.
The index ranks tools with Okapi BM25 over the words of their names (``snake_case``, ``camelCase`` and
``kebab-case`` split), their server's name, their descriptions and their parameter names.

Why our own BM25 and not a library: ``bm25s`` is well kept but needs numpy and scipy (tens of MB
for a few hundred short documents), and ``rank-bm25`` has had no release since 2022. Okapi BM25 over
a catalog of at most a few thousand tools is a few dozen lines of pure Python: it indexes 500 tools in about 35 ms
and answers a query in under a millisecond, with no new dependency and no download.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mcp_litellm._chat.search_words import query_groups, query_words, stem, words

SEARCH_TOOL = "search_tools"
READ_RESULT_TOOL = "read_result"
BUILTIN_TOOLS = (SEARCH_TOOL, READ_RESULT_TOOL)

_FIELDS = ("name", "server", "parameters", "lead", "rest")
# BM25F: how much a word counts in each field, and how much the field's length tempers it
_WEIGHT = {"name": 3.0, "server": 1.5, "parameters": 1.0, "lead": 1.5, "rest": 0.5}
_LENGTH = {"name": 0.3, "server": 0.0, "parameters": 0.5, "lead": 0.5, "rest": 0.75}
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _parameter_names(schema: Mapping[str, Any] | None) -> list[str]:
    properties = (schema or {}).get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


def _parameter_descriptions(schema: Mapping[str, Any] | None) -> list[str]:
    properties = (schema or {}).get("properties")
    if not isinstance(properties, Mapping):
        return []
    return [str(p["description"]) for p in properties.values() if isinstance(p, Mapping) and p.get("description")]


@dataclass(frozen=True)
class Entry:
    """One searchable tool: the name the model calls, its server (``""`` for a local function), a
    one-line description, and the words the index reads in each of its fields (name, server,
    parameters, the description's first sentence, the rest)."""

    name: str
    server: str
    summary: str
    fields: tuple[tuple[str, ...], ...]

    @property
    def text(self) -> list[str]:
        """Every word the index reads, all fields together."""
        return [w for field in self.fields for w in field]


def entry(name: str, server: str, description: str, schema: Mapping[str, Any] | None) -> Entry:
    """The index entry for one tool."""
    line = " ".join((description or "").split())
    summary = line if len(line) <= 160 else line[:157].rstrip() + "..."
    lead, *rest = _SENTENCE.split(line, maxsplit=1)
    rest = " ".join([*rest, *_parameter_descriptions(schema)])
    parameters = [w for p in _parameter_names(schema) for w in words(p)]
    fields = (words(name), words(server), parameters, words(lead), words(rest))
    return Entry(name, server, summary, tuple(tuple(f) for f in fields))


class ToolIndex:
    """BM25F (k1 = 1.2) over :class:`Entry` fields: a word in a tool's name counts three times one in its
    description's later sentences; long server names written as one word (``filesystem``) also count as
    their parts when both are words of the catalog."""

    K1 = 1.2

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = list(entries)
        vocabulary = {w for e in self.entries for w in e.text}
        split = _Splitter(vocabulary)
        self._fields = [tuple(split(f) if i < 2 else f for i, f in enumerate(e.fields)) for e in self.entries]
        self._counts = [[Counter(f) for f in fields] for fields in self._fields]
        total = len(self.entries) or 1
        self._average = [sum(len(fields[i]) for fields in self._fields) / total or 1.0 for i in range(len(_FIELDS))]
        frequency: Counter[str] = Counter()
        for fields in self._fields:
            frequency.update({w for f in fields for w in f})
        self._idf = {w: math.log(1 + (len(self.entries) - n + 0.5) / (n + 0.5)) for w, n in frequency.items()}

    def __len__(self) -> int:
        return len(self.entries)

    def scores(self, query: str) -> list[float]:
        """The BM25F score of every entry for ``query`` (0 where no word matches)."""
        groups = [{t: w for t, w in group.items() if t in self._idf} for group in query_groups(query)]
        groups = [group for group in groups if group]
        out = []
        for counts, fields in zip(self._counts, self._fields, strict=True):
            norms = [1 - _LENGTH[f] + _LENGTH[f] * len(fields[i]) / self._average[i] for i, f in enumerate(_FIELDS)]
            score = 0.0
            for group in groups:
                best = 0.0
                for term, weight in group.items():
                    tf = sum(_WEIGHT[f] * counts[i][term] / norms[i] for i, f in enumerate(_FIELDS) if term in counts[i])
                    if tf:
                        best = max(best, weight * self._idf[term] * tf / (self.K1 + tf))
                score += best
            out.append(score)
        return out

    def search(self, query: str, limit: int = 5, floor: float = 0.5) -> list[Entry]:
        """The best ``limit`` entries for ``query``, best first (ties: by server, then name), leaving out
        those scoring below ``floor`` times the best score (matches on a stray word only: every tool found
        costs its definition in the following requests)."""
        return rank(self.entries, self.scores(query), limit, floor)


def rank(entries: Sequence[Entry], scores: Sequence[float], limit: int, floor: float) -> list[Entry]:
    """The ``limit`` best-scoring entries (score > 0 and at least ``floor`` times the best), best first."""
    scored = sorted(((-s, e.server, e.name, e) for e, s in zip(entries, scores, strict=True) if s > 0),
                    key=lambda item: item[:3])
    best = -scored[0][0] if scored else 0.0
    return [item[3] for item in scored[:limit] if -item[0] >= floor * best]


class _Splitter:
    """Adds the parts of a compound identifier word (``filesystem`` -> ``fil``, ``system``) when both
    parts are words of the catalog."""

    def __init__(self, vocabulary: set[str]) -> None:
        self.vocabulary = vocabulary
        self._cache: dict[str, tuple[str, ...]] = {}

    def __call__(self, field: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(part for word in field for part in self._parts(word))

    def _parts(self, word: str) -> tuple[str, ...]:
        if word not in self._cache:
            parts: tuple[str, ...] = (word,)
            if len(word) >= 7 and word.isalpha():
                for cut in range(3, len(word) - 2):
                    head, tail = stem(word[:cut]), stem(word[cut:])
                    if head in self.vocabulary and tail in self.vocabulary:
                        parts = (word, head, tail)
                        break
            self._cache[word] = parts
        return self._cache[word]


def search_tool_definition(count: int, servers: Sequence[str]) -> dict[str, Any]:
    """The ``search_tools`` definition the model sees in place of ``count`` tools."""
    where = f" from {', '.join(servers)}" if servers else ""
    return {"type": "function", "function": {
        "name": SEARCH_TOOL,
        "description": (f"Find tools to use among {count} available{where}. Describe what you need to do in "
                        "a few words; the answer lists the best-matching tools, which you can then call by "
                        "name (their definitions are added). Search again with other words if none fits."),
        "parameters": {"type": "object", "properties": {"query": {
            "type": "string", "description": "what the tool should do, e.g. 'create a calendar event'"}},
            "required": ["query"]},
    }}


def read_result_definition() -> dict[str, Any]:
    """The ``read_result`` definition, offered while the chat holds cut tool results."""
    return {"type": "function", "function": {
        "name": READ_RESULT_TOOL,
        "description": "Read more of a tool result that was cut: give the id and offset its marker names.",
        "parameters": {"type": "object", "properties": {
            "id": {"type": "string", "description": "the result id from the marker"},
            "offset": {"type": "integer", "description": "the character to start from (from the marker)"}},
            "required": ["id"]},
    }}


def search_answer(query: Any, found: Sequence[Entry], total: int) -> str:
    """What ``search_tools`` tells the model."""
    if not isinstance(query, str) or not query.strip():
        return "Error: search_tools needs a non-empty 'query' string describing what you want to do."
    if not found:
        return (f"No tool matched {query!r} among {total} tools. Try other words (a verb and an object, "
                "e.g. 'send email', 'list files').")
    lines = [f"Found {len(found)} tools for {query!r}; call one by name (definitions are now available):"]
    lines += [f"- {e.name}: {e.summary}" if e.summary else f"- {e.name}" for e in found]
    return "\n".join(lines)


def definition_text(definition: Mapping[str, Any]) -> str:
    """A tool definition as compact JSON (to estimate its size)."""
    return json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
