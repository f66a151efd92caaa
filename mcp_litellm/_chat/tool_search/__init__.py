"""Tool search: the ``search_tools`` catalog a chat offers when its tools are too many for one request.

- :mod:`.words`: the words of requests and tools (splitting, stemming, everyday meanings);
- :mod:`.index`: the lexical index (BM25F) and the texts of the ``search_tools`` answers;
- :mod:`.embedding`: ranking by meaning with an embedding model, fused with the words;
- :mod:`.toolset`: :class:`SearchToolset`, the wrapper that offers the catalog and answers ``search_tools``
  (its ranker is also code mode's in-program ``search_tools``).
"""

from mcp_litellm._chat.tool_search.index import (
    BROWSE_LIMIT,
    BUILTIN_TOOLS,
    READ_RESULT_TOOL,
    SEARCH_TOOL,
    Entry,
    ToolIndex,
    entry,
    query_words,
    rank,
    read_result_definition,
    search_answer,
    search_tool_definition,
    server_answer,
    server_named,
    server_summary,
    server_text,
)
from mcp_litellm._chat.tool_search.toolset import MAX_TOOLS, SEARCH_LIMIT, SearchToolset, ToolSearchMode
from mcp_litellm._chat.tool_search.words import words

__all__ = ["BROWSE_LIMIT", "BUILTIN_TOOLS", "MAX_TOOLS", "READ_RESULT_TOOL", "SEARCH_LIMIT", "SEARCH_TOOL", "Entry",
           "SearchToolset", "ToolIndex", "ToolSearchMode", "entry", "query_words", "rank", "read_result_definition",
           "search_answer", "search_tool_definition", "server_answer", "server_named", "server_summary",
           "server_text", "words"]
