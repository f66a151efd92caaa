"""``python -m mcp_litellm``: the ``mcp-litellm`` command."""

from mcp_litellm._cli.main import main

raise SystemExit(main())
