"""Ranking experiments of issue 34's third step, on the tuning sets only (tuning, tuning2, tuning_servers and the
50 requests over the generated catalog, all over the 767-tool catalog of ``tool_search.py --only peers``):
several embedding models fused with the words at once, and re-ranking the fused ranking's first N tools by a
model's similarity to the whole description (what a re-ranker stage would do, with a bi-encoder standing in for
the cross-encoder no package bundles). Held-out sets are never scored here.

    python benchmarks/search_experiments.py                      # fusions (needs the three models' vectors)
    python benchmarks/search_experiments.py --full mpnet,minilm  # and the re-rankings by the full description

Vectors come from the files ``tool_search.py --embedding-model NAME`` keeps (``/tmp/mcp-litellm-NAME-vectors
.jsonl``, the same keys); any text missing there is embedded in this process and added to them. Prints per set
"top-1/top-5" and their sums (212 requests in the third step; 276 since tuning3 joined the tuning sets).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _search_rankers as rankers
import numpy as np
import tool_search as bench

from mcp_litellm._chat.tool_search import ToolIndex, entry
from mcp_litellm._chat.tool_search.embedding import WORDS_SHARE, tool_text

SETS = (*bench.TUNING, "generated")
MODELS = ("minilm", "mpnet", "e5")


def vectors(name: str, texts: Sequence[str]) -> Any:
    """Unit vectors of ``texts`` by the model ``name``, from its vector file (missing ones embedded and added)."""
    path = rankers.vectors_file(bench.VECTORS, name)
    assert path is not None
    known: dict[str, list[float]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                record = json.loads(line)
                known[record["key"]] = record["vector"]
    keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in known))
    if missing:
        from tests.embedding_server import SERVED, model

        SERVED["name"] = name
        model.cache_clear()
        with path.open("a") as saved:
            for text, vector in zip(missing, model().encode(missing), strict=True):
                key = hashlib.sha256(text.encode()).hexdigest()
                known[key] = [round(float(x), 7) for x in vector]
                saved.write(json.dumps({"key": key, "vector": known[key]}) + "\n")
    found = np.array([known[k] for k in keys], dtype=np.float32)
    return found / np.linalg.norm(found, axis=1, keepdims=True)


def spread(x: Any) -> Any:
    """``x`` brought to 0..1 between its least and its greatest value (as ``fuse_scores`` does)."""
    low, high = x.min(), x.max()
    return (x - low) / (high - low) if high > low else x * 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--full", default="", help="models whose full-description similarity re-ranks (mpnet,minilm)")
    arguments = parser.parse_args()
    tools = bench.real_catalog(bench.SIX + bench.TEN)
    entries = [entry(name, server, description, schema, text) for server, name, description, schema, text in tools]
    index = ToolIndex(entries)
    short = [tool_text(e, description) for e, (_, _, description, _, _) in zip(entries, tools, strict=True)]
    whole = [tool_text(e, "").rstrip(": ") + ": " + " ".join(description.split())
             for e, (_, _, description, _, _) in zip(entries, tools, strict=True)]
    rows = {split: bench.requests(split) for split in SETS}
    asked = sorted({request for split in SETS for _, request, _ in rows[split]})
    words = {request: np.array(index.scores(request)) for request in asked}
    full = [name for name in arguments.full.split(",") if name]
    texts = {name: vectors(name, short) for name in MODELS}
    wholes = {name: vectors(name, whole) for name in full}
    queries = {name: dict(zip(asked, vectors(name, asked), strict=True)) for name in MODELS}

    def by_words(request: str) -> Any:
        w = words[request]
        return w / w.max() if w.max() > 0 else w

    def fused(request: str, names: Sequence[str], share: float = WORDS_SHARE) -> Any:
        meaning = sum(spread(texts[n] @ queries[n][request]) for n in names) / len(names)
        return share * by_words(request) + (1 - share) * meaning

    def line(label: str, ranking: Callable[[str], Any]) -> None:
        cells, top1, top5 = [], 0, 0
        for split in SETS:
            a, b, _ = bench.score(split, lambda r: [(entries[i].server, entries[i].name) for i in list(ranking(r))[:5]],
                                  verbose=False)
            cells.append(f"{a}/{b}")
            top1, top5 = top1 + a, top5 + b
        print(f"| {label} | {' | '.join(cells)} | {top1}/{top5} |", flush=True)

    def best(x: Any) -> Any:
        return np.argsort(-x, kind="stable")

    total = sum(len(rows[split]) for split in SETS)
    print(f"| ranking | {' | '.join(SETS)} | sum of {total} |\n|---|{'---:|' * (len(SETS) + 1)}")
    line("words alone", lambda r: best(words[r]))
    for names in ([m] for m in MODELS):
        line(f"{names[0]}, meaning alone", lambda r, n=names[0]: best(texts[n] @ queries[n][r]))
    for names in (["minilm"], ["mpnet"], ["e5"], ["minilm", "mpnet"], ["mpnet", "e5"], list(MODELS)):
        for share in (0.5, 0.6, 0.7):
            line(f"fused, {'+'.join(names)}, words {share}", lambda r, n=names, s=share: best(fused(r, n, s)))
    for name in full:
        line(f"{name} on the full description, alone", lambda r, n=name: best(wholes[n] @ queries[n][r]))
        for base in ("minilm", "mpnet"):
            for top in (10, 20, 30):
                for mix in (0.3, 0.5, 1.0):
                    def reranked(r: str, n: str = name, b: str = base, t: int = top, m: float = mix) -> Any:
                        first = fused(r, [b])
                        chosen = best(first)[:t]
                        score = (1 - m) * spread(first[chosen]) + m * spread((wholes[n] @ queries[n][r])[chosen])
                        return chosen[best(score)]
                    line(f"fused {base}, its first {top} re-ranked by {name} (full description), share {mix}",
                         reranked)


if __name__ == "__main__":
    main()
