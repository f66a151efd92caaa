"""The wire: framing of a byte stream into JSON-RPC messages (stdio lines, SSE events) and the checks on each
message read (size limits, unreadable input, the error answered for a request whose answer was refused)."""
