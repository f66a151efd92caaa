"""Where OAuth tokens and client registrations are kept between runs.

:class:`TokenStore` implements the SDK's ``mcp.client.auth.TokenStorage`` protocol, in memory or in
one JSON file per MCP server (resource) in the user's config directory (``$MCP_LITELLM_OAUTH_DIR``,
else ``$XDG_CONFIG_HOME/mcp-litellm/oauth``, else ``~/.config/mcp-litellm/oauth``). The directory is
created with mode 0700 and each file is written atomically with mode 0600. Inside a file, entries
are keyed by the authorization server's issuer, so a server that moves to another authorization
server gets a new registration without losing the old one.

Unlike the SDK, the store keeps each access token's absolute expiry time, so a token stored by an
earlier run is refreshed before it expires instead of being sent and rejected.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import ValidationError

from mcp_litellm._core.errors import AuthError

__all__ = ["OAUTH_DIR_ENV", "TokenStore", "oauth_directory"]

logger = logging.getLogger("mcp_litellm.oauth")

OAUTH_DIR_ENV = "MCP_LITELLM_OAUTH_DIR"
"""Environment variable naming the directory for stored tokens (overrides the config directory)."""

_UNKNOWN_ISSUER = ""
_FORMAT = 1


def oauth_directory() -> Path:
    """The default directory for stored OAuth tokens."""
    override = os.environ.get(OAUTH_DIR_ENV)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mcp-litellm" / "oauth"


def _file_name(resource: str) -> str:
    parts = urlsplit(resource)
    readable = re.sub(r"[^A-Za-z0-9.-]+", "_", f"{parts.hostname or 'server'}_{parts.port or ''}").strip("_")
    digest = hashlib.sha256(resource.encode("utf-8")).hexdigest()[:16]
    return f"{readable}-{digest}.json"


class TokenStore:
    """Tokens and the client registration for one MCP server (resource), in memory or in a file.

    ``issuer()`` names the authorization server the flow talks to at the moment (``None`` before
    discovery); entries are filed under it.
    """

    def __init__(self, resource: str, directory: Path | None, *, server: str | None = None) -> None:
        self.resource = resource
        self.server = server or resource
        self.path = directory / _file_name(resource) if directory is not None else None
        self.current_issuer: str | None = None
        self._data: dict[str, Any] | None = None

    def __repr__(self) -> str:
        where = str(self.path) if self.path is not None else "memory"
        return f"TokenStore(resource={self.resource!r}, at={where!r})"

    # -- the file ------------------------------------------------------------------------------------

    def _fix(self) -> str:
        return (f"make it writable, set {OAUTH_DIR_ENV} to another directory, or set oauth.storage to 'memory' "
                "or a directory path")

    def _load(self) -> dict[str, Any]:
        if self._data is not None:
            return self._data
        data: dict[str, Any] = {"format": _FORMAT, "resource": self.resource, "active": None, "issuers": {}}
        if self.path is not None:
            try:
                text = self.path.read_text(encoding="utf-8")
            except (FileNotFoundError, NotADirectoryError):
                text = None
            except OSError as exc:
                raise AuthError(f"cannot read the stored OAuth tokens for {self.server} from {self.path} "
                                f"({exc.strerror or type(exc).__name__}); {self._fix()}") from None
            if text is not None:
                try:
                    loaded = json.loads(text)
                    if isinstance(loaded, dict) and isinstance(loaded.get("issuers"), dict):
                        data = loaded
                    else:
                        raise ValueError("unexpected layout")
                except ValueError:
                    logger.warning("ignoring the unreadable OAuth token file %s for %s; the next use authorizes again",
                                   self.path, self.server)
        self._data = data
        return data

    def _save(self) -> None:
        data = self._load()
        if self.path is None:
            return
        directory = self.path.parent
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            if (directory.stat().st_mode & 0o077) != 0:
                directory.chmod(0o700)
            fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=directory)
            try:
                if hasattr(os, "fchmod"):  # mkstemp already creates the file 0600; say it anyway
                    os.fchmod(fd, 0o600)
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, indent=1)
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        except OSError as exc:
            raise AuthError(f"cannot store the OAuth tokens for {self.server} in {directory} "
                            f"({exc.strerror or type(exc).__name__}); {self._fix()}") from None

    def _entry(self, issuer: str | None = None, *, create: bool = False) -> dict[str, Any] | None:
        data = self._load()
        key = issuer if issuer is not None else (self.current_issuer or data.get("active") or _UNKNOWN_ISSUER)
        entry = data["issuers"].get(key)
        if entry is None and create:
            entry = data["issuers"][key] = {}
        if create:
            data["active"] = key
        return entry if isinstance(entry, dict) else None

    # -- mcp.client.auth.TokenStorage --------------------------------------------------------------

    async def get_tokens(self) -> OAuthToken | None:
        """The stored tokens for the current authorization server, if any."""
        entry = self._entry()
        raw = entry.get("tokens") if entry else None
        if raw is None:
            return None
        try:
            return OAuthToken.model_validate(raw)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        """Store new tokens, with the absolute time their access token expires."""
        entry = self._entry(create=True)
        assert entry is not None
        entry["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        entry["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save()

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        """The stored client registration for the current authorization server, if any."""
        entry = self._entry()
        raw = entry.get("client_info") if entry else None
        if raw is None:
            return None
        try:
            return OAuthClientInformationFull.model_validate(raw)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        """Store a client registration (under the issuer it was registered with, when known)."""
        issuer = client_info.issuer or self.current_issuer
        if issuer is not None:
            self.current_issuer = issuer
        entry = self._entry(issuer, create=True)
        assert entry is not None
        entry["client_info"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save()

    # -- beyond the protocol ---------------------------------------------------------------------------

    def expires_at(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), if known."""
        entry = self._entry()
        value = entry.get("expires_at") if entry else None
        return float(value) if isinstance(value, int | float) else None

    def reload(self) -> tuple[OAuthToken | None, float | None]:
        """Re-read the file (another process may have refreshed): the stored tokens and their expiry."""
        self._data = None
        entry = self._entry()
        raw = entry.get("tokens") if entry else None
        try:
            tokens = OAuthToken.model_validate(raw) if raw is not None else None
        except ValidationError:
            tokens = None
        return tokens, self.expires_at()

    def status(self) -> str:
        """``"authorized"``, ``"expired"`` (a refresh token may renew it) or ``"not authorized"``, as the
        file says now."""
        if self.path is not None:
            self._data = None
        entry = self._entry()
        if not entry or not entry.get("tokens"):
            return "not authorized"
        expires = self.expires_at()
        if expires is not None and expires <= time.time():
            return "expired" + (", refreshable" if entry["tokens"].get("refresh_token") else "")
        return "authorized"

    def forget_tokens(self) -> None:
        """Drop the stored tokens (every authorization server), keeping client registrations."""
        data = self._load()
        for entry in data["issuers"].values():
            if isinstance(entry, dict):
                entry.pop("tokens", None)
                entry.pop("expires_at", None)
        self._save()

    def delete(self) -> bool:
        """Forget everything stored for this server, the file included; ``True`` if there was something."""
        had = bool(self._load()["issuers"])
        self._data = None
        if self.path is not None:
            try:
                self.path.unlink()
                had = True
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise AuthError(f"cannot delete the stored OAuth tokens for {self.server} at {self.path} "
                                f"({exc.strerror or type(exc).__name__}); delete the file by hand") from None
        self._data = {"format": _FORMAT, "resource": self.resource, "active": None, "issuers": {}}
        return had

