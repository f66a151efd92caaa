"""The chat: a LiteLLM conversation with its tool loop, streaming and messages."""
