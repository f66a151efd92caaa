"""The session plumbing of a client: one live MCP session (``connection``, ``mcp_session``) on its home loop (``loop``),
the caller's context carried to it (``call_context``), the call deadline (``deadline``), failures mapped to the
package's exceptions (``failures``), the protocol-era fallback (``era``) and the task wire protocol (``task_protocol``).
Nothing here imports the primitives or the client above it."""
