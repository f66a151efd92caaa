"""``Usage``: tokens and cost of model requests, shared by chats and by sampling."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Usage:
    """Tokens and cost of one or more model requests.

    Attributes:
        prompt_tokens, completion_tokens: summed over the requests (as the provider reported them).
        cost: the cost in USD where LiteLLM prices the model (``litellm.completion_cost``), else ``None``.
        requests: how many model requests this covers.
        cache_read_tokens: of the prompt tokens, how many the provider read from its prompt cache (billed at
            its cache-read price); 0 when none or when the provider does not say.
        cache_write_tokens: of the prompt tokens, how many the provider wrote to its prompt cache (Anthropic
            and Bedrock bill these at a cache-write price); 0 when none.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    requests: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt and completion tokens together."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        cost = None if self.cost is None and other.cost is None else (self.cost or 0.0) + (other.cost or 0.0)
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens,
                     cost, self.requests + other.requests, self.cache_read_tokens + other.cache_read_tokens,
                     self.cache_write_tokens + other.cache_write_tokens)
