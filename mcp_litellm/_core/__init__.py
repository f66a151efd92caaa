"""Errors and pure conversion between MCP and LiteLLM shapes: no I/O, no event loop."""
