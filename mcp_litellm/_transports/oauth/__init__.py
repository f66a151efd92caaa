"""OAuth 2.1 for HTTP transports: the face the rest of the package uses.

- ``settings``: the ``oauth`` settings of a server entry, validated (``oauth_settings``, ``OAuthSettings``);
- ``provider``: the SDK's OAuth providers, guarded (endpoint policy, refresh, errors) (``oauth_auth``);
- ``storage`` and ``backends``: where tokens live (memory, file, Redis; locks; optional sealing);
- ``user_agent``: the browser hop and the local callback listener;
- ``revoke``: revoking stored tokens at logout; ``errors``: what a failed flow says.
"""

from mcp_litellm._transports.oauth.factory import oauth_auth, token_store
from mcp_litellm._transports.oauth.provider import is_oauth
from mcp_litellm._transports.oauth.revoke import revoke_stored
from mcp_litellm._transports.oauth.settings import OAuthProblem, OAuthSettings, oauth_settings
from mcp_litellm._transports.oauth.storage import TokenStore

__all__ = ["OAuthProblem", "OAuthSettings", "TokenStore", "is_oauth", "oauth_auth", "oauth_settings",
           "revoke_stored", "token_store"]
