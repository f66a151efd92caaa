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

SEARCH_TOOL = "search_tools"
READ_RESULT_TOOL = "read_result"
BUILTIN_TOOLS = (SEARCH_TOOL, READ_RESULT_TOOL)

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP_WORDS = ("a an and are as at be by can do does for from get give i in into is it its me my need of on or "
               "please some that the their them there these this to up use using want was what when where which "
               "who will with would you your all any about how much s t")
# words people use in requests for the verbs and nouns tools are named with (query side only)
_RELATED = {"find": "search", "look": "search", "lookup": "search", "show": "list", "make": "creat", "add": "creat",
            "new": "creat", "remov": "delet", "eras": "delet", "drop": "delet", "chang": "updat", "edit": "updat",
            "modify": "updat", "set": "updat", "read": "get", "fetch": "get", "view": "get", "email": "mail",
            "mail": "email", "cost": "price", "price": "cost", "folder": "directory", "directory": "folder"}
_STOP = frozenset(_STOP_WORDS.split(" "))
_NAME_WEIGHT = 3  # a word in the tool's name counts as much as three in its description


def words(text: str) -> list[str]:
    """Lower-case word stems of ``text``: identifiers split at ``_``, ``-``, ``.`` and case changes;
    common English words dropped; a light suffix stemmer (``files``/``listing``/``created`` ->
    ``fil``/``list``/``creat``) so a request's wording meets a tool's."""
    return [_stem(w.lower()) for w in _WORD.findall(text) if w.lower() not in _STOP]


def query_words(text: str) -> list[str]:
    """:func:`words` of a request, plus the words tools commonly use for them (``find`` -> ``search``)."""
    found = words(text)
    return found + [_RELATED[w] for w in found if w in _RELATED]


def _stem(word: str) -> str:
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")) and not word.endswith("sses"):
        word = word[:-2] + "e"  # "boxes", "matches" (the "e" goes below)
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "shipping" -> "ship"
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]  # "create"/"creat", "delete"/"delet"
    return word


def _parameter_names(schema: Mapping[str, Any] | None) -> list[str]:
    properties = (schema or {}).get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


@dataclass(frozen=True)
class Entry:
    """One searchable tool: the name the model calls, its server (``""`` for a local function), a
    one-line description, and the text the index reads."""

    name: str
    server: str
    summary: str
    text: list[str]


def entry(name: str, server: str, description: str, schema: Mapping[str, Any] | None) -> Entry:
    """The index entry for one tool."""
    line = " ".join((description or "").split())
    summary = line if len(line) <= 160 else line[:157].rstrip() + "..."
    tokens = words(name) * _NAME_WEIGHT + words(server) + words(description or "")
    tokens += [w for p in _parameter_names(schema) for w in words(p)]
    return Entry(name, server, summary, tokens)


class ToolIndex:
    """Okapi BM25 (k1 = 1.2, b = 0.75) over :class:`Entry` documents."""

    K1 = 1.2
    B = 0.75

    def __init__(self, entries: Iterable[Entry]) -> None:
        self.entries = list(entries)
        self._counts = [Counter(e.text) for e in self.entries]
        self._lengths = [len(e.text) for e in self.entries]
        self._average = (sum(self._lengths) / len(self._lengths)) if self._lengths else 0.0
        frequency: Counter[str] = Counter()
        for counts in self._counts:
            frequency.update(counts.keys())
        total = len(self.entries)
        self._idf = {w: math.log(1 + (total - n + 0.5) / (n + 0.5)) for w, n in frequency.items()}

    def __len__(self) -> int:
        return len(self.entries)

    def search(self, query: str, limit: int = 5, floor: float = 0.5) -> list[Entry]:
        """The best ``limit`` entries for ``query``, best first (ties: by server, then name), leaving out
        those scoring below ``floor`` times the best score (matches on a stray word only: every tool found
        costs its definition in the following requests)."""
        terms = set(query_words(query))
        scored: list[tuple[float, str, str, Entry]] = []
        for entry, counts, length in zip(self.entries, self._counts, self._lengths, strict=True):
            score = 0.0
            for term in terms:
                tf = counts.get(term)
                if tf:
                    norm = self.K1 * (1 - self.B + self.B * length / (self._average or 1))
                    score += self._idf[term] * tf * (self.K1 + 1) / (tf + norm)
            if score > 0:
                scored.append((-score, entry.server, entry.name, entry))
        scored.sort(key=lambda item: item[:3])
        best = -scored[0][0] if scored else 0.0
        return [item[3] for item in scored[:limit] if -item[0] >= floor * best]


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
