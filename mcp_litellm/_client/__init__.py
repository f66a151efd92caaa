"""One MCP server: the ``Client``, its connection and loop, listings, notifications, roots and primitives."""
