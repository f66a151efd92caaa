"""Many servers as one: ``ClientGroup`` and the ``mcpServers`` config files."""
