"""Tool search: a lexical index over a chat's tools, and the ``search_tools`` tool the model calls.

When a chat holds more tools than fit its budget, the model gets a small catalog instead of every
definition: ``search_tools`` (a ``query``, or a ``server`` whose tools to list) plus the tools it already
found or used. The index ranks tools with BM25F over five fields: the words of their names
(``snake_case``, ``camelCase`` and ``kebab-case`` split), their server's name, their parameter names, the
first sentence of their description and the rest; a request's words meet the tools' through a small
table of everyday words (:mod:`mcp_litellm._chat.tool_search.words`) and, faintly, through the name words the
catalog itself pairs them with (:meth:`ToolIndex.neighbours`). When nothing matches, the answer says
so and lists the servers, so the model can look by server instead. With an embedding model configured,
:mod:`mcp_litellm._chat.tool_search.embedding` ranks instead, this index being its fallback.

Why our own BM25F and not a library: ``bm25s`` is well kept but needs numpy and scipy (tens of MB
for a few hundred short documents), has no fields, and ``rank-bm25`` has had no release since 2022. BM25F
over a catalog of at most a few thousand tools is a few dozen lines of pure Python, with no new
dependency and no download.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp_litellm._chat.builtin_names import BUILTIN_TOOLS as BUILTIN_TOOLS  # re-exported
from mcp_litellm._chat.builtin_names import READ_RESULT_TOOL as READ_RESULT_TOOL  # re-exported
from mcp_litellm._chat.builtin_names import SEARCH_TOOL as SEARCH_TOOL  # re-exported
from mcp_litellm._chat.tool_search.words import RELATED_WEIGHT, raw_words, stem, word_meanings, words
from mcp_litellm._chat.tool_search.words import query_words as query_words  # re-exported for tests

if TYPE_CHECKING:
    from mcp_litellm._client.primitives.tool import Tool

_FIELDS = ("name", "server", "parameters", "lead", "rest")
# BM25F: how much a word counts in each field, and how much the field's length tempers it
_WEIGHT = {"name": 3.0, "server": 1.5, "parameters": 1.0, "lead": 1.5, "rest": 0.5}
_LENGTH = {"name": 0.3, "server": 0.0, "parameters": 0.5, "lead": 0.5, "rest": 0.75}
COORDINATION = 0.5
"""How strongly the share of a request's words a tool meets scales its score (0: not at all)."""
NAME_COVERAGE = 0.5
"""How much a tool's score grows when the request covers its whole name (its words, or their related words,
but not its server's name): ``create_directory`` covered by "create a folder" beats ``mail_create_folder``,
which the request covers only in part."""
LEAD_COVERAGE = 0.25
"""The same for the words of the first sentence of a tool's description (what the tool does)."""
NEIGHBOUR_WEIGHT = 0.1
"""How much a request's word counts through the name words the catalog itself pairs it with (times their Dice
coefficient): "opportunity", said in the CRM tools' descriptions, brings the ``deal`` of their names."""
NEIGHBOURS = 3  # name words a request's word brings at most
PER_SERVER = 3
"""Places of a search's answer (five) that one server fills at most while other servers' tools are above the
floor (they take the later places; places left over go back to it): an ambiguous request ("file a bug report")
then shows another server's ``create_issue`` rather than a fourth and fifth tool of one issue tracker."""
NEIGHBOUR_DICE = 0.4  # the least Dice coefficient of the tools having a word and those having a name word
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|(?<=[\u3002\uff01\uff1f])\s*(?=\S)")  # CJK stops: no space


def lead_sentence(text: str) -> str:
    """The first sentence of a description (spaces collapsed): what the tool does."""
    return _SENTENCE.split(" ".join((text or "").split()), maxsplit=1)[0]


def _parameter_names(schema: Mapping[str, object] | None) -> list[str]:
    properties = (schema or {}).get("properties")
    return [str(name) for name in properties] if isinstance(properties, Mapping) else []


def _parameter_descriptions(schema: Mapping[str, object] | None) -> list[str]:
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


def entry(name: str, server: str, description: str, schema: Mapping[str, object] | None,
          server_text: str | None = None) -> Entry:
    """The index entry for one tool (``server_text``: what the server field reads, if more than its name)."""
    line = " ".join((description or "").split())
    summary = line if len(line) <= 160 else line[:157].rstrip() + "..."
    lead, *later = _SENTENCE.split(line, maxsplit=1)
    rest = " ".join([*later, *_parameter_descriptions(schema)])
    parameters = [w for p in _parameter_names(schema) for w in words(p)]
    fields = (words(name), list(dict.fromkeys(words(server_text or server))), parameters, words(lead), words(rest))
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
        fields = [tuple(split(f) if i < 2 else f for i, f in enumerate(e.fields)) for e in self.entries]
        total = len(self.entries) or 1
        average = [sum(len(f[i]) for f in fields) / total or 1.0 for i in range(len(_FIELDS))]
        # per word: (entry, its weighted and length-normalised frequency over the fields)
        self._postings: dict[str, list[tuple[int, float]]] = {}
        for number, entry_fields in enumerate(fields):
            weighted: dict[str, float] = {}
            for i, (name, field) in enumerate(zip(_FIELDS, entry_fields, strict=True)):
                norm = 1 - _LENGTH[name] + _LENGTH[name] * len(field) / average[i]
                for word, n in Counter(field).items():
                    weighted[word] = weighted.get(word, 0.0) + _WEIGHT[name] * n / norm
            for word, tf in weighted.items():
                self._postings.setdefault(word, []).append((number, tf))
        self._idf = {w: math.log(1 + (total - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self._postings.items()}
        # per word: the tools whose name (less its server's words: ``git_log`` of server ``git`` is named
        # "log") or description's first sentence has it, with the share of that part the word is
        self._covers: tuple[dict[str, list[tuple[int, float]]], ...] = ({}, {})
        self._names = [frozenset(f[0]) for f in fields]  # each tool's name words (for the catalog's neighbours)
        self._neighbours: dict[str, dict[str, float]] = {}
        for number, e in enumerate(self.entries):
            own = tuple(dict.fromkeys(w for w in e.fields[0] if w not in e.fields[1]) or e.fields[0])
            lead = tuple(dict.fromkeys(e.fields[3]))
            for covers, words_of in zip(self._covers, (own, lead), strict=True):
                for word in words_of:
                    covers.setdefault(word, []).append((number, 1 / len(words_of)))

    def __len__(self) -> int:
        return len(self.entries)

    def scores(self, query: str) -> list[float]:
        """The BM25F score of every entry for ``query`` (0 where no word matches). Per distinct word of the
        request: the word itself where the entry has it, plus, for each meaning the word has, the best of
        that meaning's other words (weighted :data:`~mcp_litellm._chat.tool_search.words.RELATED_WEIGHT`), so a
        word counts once however many meanings it has, and a word with two meanings ("forget": delete, and
        memory) counts for both. The sum is scaled by the share of the request's words the entry meets
        (coordination: a tool meeting two of three words beats one that meets one word strongly) and by how
        much of the tool's own name and of its description's first sentence the request covers
        (:data:`NAME_COVERAGE`, :data:`LEAD_COVERAGE`)."""
        return self._scored(query)[1]

    def _scored(self, query: str) -> tuple[list[float], list[float]]:
        """:meth:`scores` before the name and description coverage (which :meth:`search`'s floor reads), and
        after."""
        out = [0.0] * len(self.entries)
        met = [0] * len(self.entries)
        asked = word_meanings(query)
        said: dict[str, float] = {}  # every word the request brings, with its weight (for name coverage)
        for word, meanings in asked:
            per = self._best({word: 1.0})
            for meaning in meanings:
                for number, value in self._best(dict.fromkeys(meaning, RELATED_WEIGHT)).items():
                    per[number] = per.get(number, 0.0) + value
                said.update((term, RELATED_WEIGHT) for term in meaning if term not in said)
            said[word] = 1.0
            own = {term for meaning in meanings for term in meaning}  # what the word's meanings already bring
            for number, value in self._best(self._close(word, own)).items():
                per[number] = per.get(number, 0.0) + value
            for number, value in per.items():
                out[number] += value
                met[number] += 1
        if asked:
            out = [score * (met[i] / len(asked)) ** COORDINATION for i, score in enumerate(out)]
        base = list(out)
        for covers, weight in zip(self._covers, (NAME_COVERAGE, LEAD_COVERAGE), strict=True):
            covered: dict[int, float] = {}
            for term, said_weight in said.items():
                for number, share in covers.get(term, ()):
                    covered[number] = covered.get(number, 0.0) + said_weight * share
            for number, share in covered.items():
                out[number] *= 1 + weight * share
        return base, out

    def _close(self, word: str, own: set[str]) -> dict[str, float]:
        """The words ``word`` brings faintly besides its meanings' (``own``): its :meth:`neighbours` here."""
        return {t: w for t, w in self.neighbours(word).items() if t not in own}

    def neighbours(self, word: str) -> dict[str, float]:
        """The name words this catalog pairs with ``word`` (a stem), with their weight in a request: a
        pseudo-thesaurus from the catalog's own text, for any catalog. A name word is ``word``'s neighbour when
        at least two tools have both and the tools having ``word`` (in any field) and those having the name word
        overlap with a Dice coefficient of at least :data:`NEIGHBOUR_DICE`; the :data:`NEIGHBOURS` closest
        count, each :data:`NEIGHBOUR_WEIGHT` times its coefficient (in a CRM's tools, "opportunity" brings
        ``deal``, "attachment" in a mail server's ``mail``)."""
        if word not in self._neighbours:
            having = self._postings.get(word, ())
            together = Counter(t for number, _ in having for t in self._names[number])
            close = sorted((-2 * both / (len(having) + len(self._postings[t])), t) for t, both in together.items()
                           if both >= 2 and t != word)
            self._neighbours[word] = {t: -dice * NEIGHBOUR_WEIGHT for dice, t in close[:NEIGHBOURS]
                                      if -dice >= NEIGHBOUR_DICE}
        return self._neighbours[word]

    def _best(self, group: Mapping[str, float]) -> dict[int, float]:
        """Per entry, the best BM25F value of any word of ``group`` (word -> weight) it has."""
        best: dict[int, float] = {}
        for term, weight in group.items():
            idf = self._idf.get(term, 0.0)
            for number, tf in self._postings.get(term, ()):
                value = weight * idf * tf / (self.K1 + tf)
                if value > best.get(number, 0.0):
                    best[number] = value
        return best

    def search(self, query: str, limit: int = 5, floor: float = 0.5, server: str | None = None) -> list[Entry]:
        """The best ``limit`` entries for ``query`` (of ``server`` only, if given), best first (ties: by
        server, then name), leaving out those scoring below ``floor`` times the best score (matches on a
        stray word only: every tool found costs its definition in the following requests; the floor reads the
        scores before the coverage factors, which order the tools but do not make a match)."""
        base, scores = self._scored(query)
        if server is not None:
            scores = [s if e.server == server else 0.0 for e, s in zip(self.entries, scores, strict=True)]
            base = [s if e.server == server else 0.0 for e, s in zip(self.entries, base, strict=True)]
        return rank(self.entries, scores, limit, floor, base, None if server is not None else PER_SERVER)


def rank(entries: Sequence[Entry], scores: Sequence[float], limit: int, floor: float,
         floor_scores: Sequence[float] | None = None, per_server: int | None = None) -> list[Entry]:
    """The ``limit`` best-scoring entries (score > 0 and at least ``floor`` times the best), best first;
    ``floor_scores``, if given, are the scores the floor reads (the order is still ``scores``). With
    ``per_server``, one server fills at most that many places while entries of other servers are left above the
    floor (they take its later places; an answer then shows more than one server's way to do the task)."""
    kept = scores if floor_scores is None else floor_scores
    best = max(kept, default=0.0)
    scored = sorted(((-s, e.server, e.name, e) for e, s, k in zip(entries, scores, kept, strict=True)
                     if s > 0 and k >= floor * best), key=lambda item: item[:3])
    ordered = [item[3] for item in scored]
    if per_server is None:
        return ordered[:limit]
    chosen: list[Entry] = []
    held: list[Entry] = []  # over their server's share, in order: they fill what the other servers leave
    count: Counter[str] = Counter()
    for found in ordered:
        if len(chosen) == limit:
            break
        if count[found.server] < per_server:
            count[found.server] += 1
            chosen.append(found)
        else:
            held.append(found)
    if len(chosen) < limit:  # too few other servers: back in score order
        return sorted(chosen + held[:limit - len(chosen)], key=ordered.index)
    return chosen


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


def search_tool_definition(count: int, servers: Sequence[str], name: str = SEARCH_TOOL) -> dict[str, object]:
    """The ``search_tools`` definition the model sees in place of ``count`` tools (offered as ``name``)."""
    where = f" from {', '.join(servers)}" if servers else ""
    properties: dict[str, object] = {"query": {
        "type": "string", "description": "what the tool should do, e.g. 'create a calendar event'"}}
    if servers:
        properties["server"] = {"type": "string", "enum": list(servers), "description": (
            "list this server's tools (with a query: search only there)")}
    browse = " Give a server instead to list its tools." if servers else ""
    return {"type": "function", "function": {
        "name": name,
        "description": (f"Find tools to use among {count} available{where}. Describe what you need to do in "
                        "a few words; the answer lists the best-matching tools, which you can then call by "
                        f"name (their definitions are added). Search again with other words if none fits.{browse}"),
        "parameters": {"type": "object", "properties": properties},
    }}


def read_result_definition(name: str = READ_RESULT_TOOL) -> dict[str, object]:
    """The ``read_result`` definition, offered (as ``name``) while the chat holds cut tool results."""
    return {"type": "function", "function": {
        "name": name,
        "description": "Read more of a tool result that was cut: give the id and offset its marker names.",
        "parameters": {"type": "object", "properties": {
            "id": {"type": "string", "description": "the result id from the marker"},
            "offset": {"type": "integer", "description": "the character to start from (from the marker)"}},
            "required": ["id"]},
    }}


BROWSE_LIMIT = 30  # tools one server listing names (and loads); a larger server is narrowed with a query
_FILLER = frozenset(("the", "a", "an", "all", "of", "on", "in", "from", "for", "list", "show", "tools", "tool",
                     "server", "servers", "s", "what", "which", "are", "is", "available", "give", "me"))


def server_named(query: str, servers: Iterable[str]) -> str | None:
    """The server a query names on its own ("git", "the git tools", "list the memory server's tools")."""
    said = [w for w in raw_words(query) if w not in _FILLER]
    if not said:
        return None
    for server in servers:
        if (server and raw_words(server) == said) or "".join(said) == re.sub(r"[\W_]", "", server.lower()):
            return server
    return None


def search_answer(query: object, found: Sequence[Entry], total: int, servers: Sequence[tuple[str, str]] = (),
                  tool: str = SEARCH_TOOL) -> str:
    """What ``search_tools`` (offered as ``tool``) tells the model: the tools found, or that nothing matched
    and which servers there are (``(name, one-line summary)`` each) to list instead."""
    if not isinstance(query, str) or not query.strip():
        return (f"Error: {tool} needs a non-empty 'query' string describing what you want to do"
                + (" (or a 'server' whose tools to list)." if servers else "."))
    if not found:
        lines = [f"No tool matched {query!r} among {total} tools. Try other words: what to do and to what "
                 "(a verb and an object, e.g. 'send email', 'list files')."]
        if servers:
            lines.append(f"Or list one server's tools with {tool}(server=NAME). The servers:")
            lines += [f"- {name}: {summary}" if summary else f"- {name}" for name, summary in servers]
        return "\n".join(lines)
    plural = "" if len(found) == 1 else "s"
    lines = [f"Found {len(found)} tool{plural} for {query!r}; call one by name (definitions are now available):"]
    lines += [f"- {e.name}: {e.summary}" if e.summary else f"- {e.name}" for e in found]
    again = (f"None fits? Search again with other words (what to do, and to what: {tool}(query='...')), as "
             "often as needed")
    if len(servers) > 1:
        again += (f", or list a server's tools with {tool}(server=NAME); servers: "
                  f"{', '.join(name for name, _ in servers)}")
    lines.append(again + ". Tools found before stay available.")
    return "\n".join(lines)


def server_answer(server: str, listed: Sequence[Entry], count: int, query: str | None,
                  tool: str = SEARCH_TOOL) -> str:
    """What ``search_tools`` (offered as ``tool``) tells the model when it lists (or searches) one server's
    tools."""
    if query and not listed:
        return (f"No tool of server {server!r} matched {query!r}. List all its tools with "
                f"{tool}(server={server!r}), or search every server with other words.")
    head = (f"Server {server!r}: {len(listed)} of its {count} tools for {query!r}" if query else
            f"Server {server!r} has {count} tools" + (f"; the first {len(listed)}" if len(listed) < count else ""))
    lines = [head + "; call one by name (definitions are now available):"]
    lines += [f"- {e.name}: {_first_sentence(e.summary)}" if e.summary else f"- {e.name}" for e in listed]
    if len(listed) < count and not query:
        lines.append(f"Add a query to search among the {count - len(listed)} others, e.g. "
                     f"{tool}(server={server!r}, query='send email').")
    return "\n".join(lines)


def server_text(tool: Tool) -> str:
    """A server's name with the name and title it gives itself (``secure-filesystem-server``), so a server
    configured under a short name ("fs") still meets a request's words."""
    client: object = tool.client
    try:
        info = getattr(client, "server_info", None)
    except Exception:  # not connected: its configured name only
        info = None
    return " ".join(str(part) for part in (tool.server, getattr(info, "name", None), getattr(info, "title", None))
                    if part)


def server_summary(tools: Sequence[Tool]) -> str:
    """One line about a server from its tools (:class:`~mcp_litellm.Tool`): how it describes itself
    (``serverInfo`` description or title, else its instructions' first sentence), then a few tool names."""
    client: object = tools[0].client
    own: object = ""
    try:
        info = getattr(client, "server_info", None)
        own = (getattr(info, "description", None) or getattr(info, "title", None)
               or getattr(client, "instructions", None) or "")
    except Exception:  # a client that is not connected has nothing to say of itself
        own = ""
    own = _first_sentence(" ".join(str(own).split()))
    names = ", ".join(t.name for t in tools[:4]) + (", ..." if len(tools) > 4 else "")
    count = f"{len(tools)} tool{'s' if len(tools) != 1 else ''}: {names}"
    return f"{own.rstrip('.')}. {count}" if own else count


def _first_sentence(text: str, limit: int = 100) -> str:
    first = _SENTENCE.split(text, maxsplit=1)[0]
    return first if len(first) <= limit else first[: limit - 3].rstrip() + "..."


def definition_text(definition: Mapping[str, object]) -> str:
    """A tool definition as compact JSON (to estimate its size)."""
    return json.dumps(definition, separators=(",", ":"), ensure_ascii=False)
