"""A factory fixture's shape, written once: clients made on demand, all stopped when the test ends."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import mcp_litellm as ml


@contextmanager
def client_factory(build: Callable[..., ml.Client]) -> Iterator[Callable[..., ml.Client]]:
    """``build``'s clients, each kept so that every one is stopped on exit (a fixture yields the factory)."""
    made: list[ml.Client] = []

    def make(*args: object, **kwargs: object) -> ml.Client:
        client = build(*args, **kwargs)
        made.append(client)
        return client

    try:
        yield make
    finally:
        for client in made:
            client.stop()
