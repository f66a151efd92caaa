"""The ``mcp-litellm`` command line."""
