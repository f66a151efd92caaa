"""The document stores (the protocol is :class:`mcp_litellm._core.documents.DocumentStore`): one JSON
document under one key, in memory, a file or Redis, with a lock, and sealing at rest.

- ``files``: :class:`MemoryDocument` and :class:`FileDocument`;
- ``redis_documents``: :class:`RedisDocument` and :func:`redis_keys`;
- ``sealing``: :class:`Sealer` (Fernet).

OAuth tokens (``_transports/oauth/storage.py``) and tool pins (``_client/pins.py``) keep their state here.
"""

from mcp_litellm._core.documents import REDIS_SCHEMES, DocumentStore, Wording
from mcp_litellm._transports.stores.files import LOCK_TIMEOUT, FileDocument, MemoryDocument
from mcp_litellm._transports.stores.redis_documents import RedisDocument, redis_keys, shown_url
from mcp_litellm._transports.stores.sealing import KEY_HINT, Sealer, check_key, sealer_from

__all__ = ["KEY_HINT", "LOCK_TIMEOUT", "REDIS_SCHEMES", "DocumentStore", "FileDocument", "MemoryDocument",
           "RedisDocument", "Sealer", "Wording", "check_key", "sealer_from", "redis_keys", "shown_url"]
