"""The public value objects of a client: ``Tool`` and ``ToolResult``, ``Resource``, ``Prompt``, ``Task``, progress
updates, roots, the client-feature shapes (``handler_types``, ``handler_specs``) and the tool interface
(``toolset``: ``Toolset``, ``CallContext`` and the wrappers)."""
