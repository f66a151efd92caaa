"""DPoP (RFC 9449, SEP-1932): access tokens bound to a key of the client's, a fresh proof on every request.

With ``oauth.dpop`` on, each client (each token store: a server, and a user of an app) has an ES256 key. Every
token request carries a proof (``DPoP`` header: a ``dpop+jwt`` signed with the key, with ``htm``, ``htu``,
``iat``, a fresh ``jti``, and the server's nonce once it asked for one); an authorization server that supports
DPoP binds the tokens to the key (``token_type`` ``DPoP``), and every MCP request then presents the token as
``Authorization: DPoP <token>`` with a proof that also carries ``ath`` (the token's hash). A ``use_dpop_nonce``
challenge, from the token endpoint (400) or the MCP server (401), is answered once with a fresh proof carrying
the nonce. The key is stored beside the tokens (:meth:`TokenStore.set_dpop_key`), so it is encrypted with them
when a token key is set and shared with them by an app's workers through Redis.

The SDK's ``OAuthToken`` accepts only ``token_type`` ``Bearer``, so a ``DPoP`` token response is handed to it
as ``Bearer`` and the binding is kept here (upstream: ``mcp.shared.auth.OAuthToken.token_type`` should accept
``DPoP``, RFC 9449 section 5).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

import httpx2

from mcp_litellm._core.redact import remember_secrets

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePrivateKey

__all__ = ["DPoPKey", "DPoPSigner", "needs_cryptography"]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def needs_cryptography() -> str | None:
    """Why DPoP cannot work here, or ``None``."""
    import importlib.util

    if importlib.util.find_spec("cryptography") is None:
        return ("DPoP signs with an ES256 key, which needs the cryptography package: "
                "pip install 'mcp-litellm[encryption]'")
    return None


class DPoPKey:
    """An ES256 (P-256) key pair for DPoP proofs; its private half is never shown."""

    def __init__(self, private_key: EllipticCurvePrivateKey) -> None:
        self._key = private_key
        numbers = private_key.public_key().public_numbers()
        self.public_jwk = {"crv": "P-256", "kty": "EC", "x": _b64(numbers.x.to_bytes(32, "big")),
                           "y": _b64(numbers.y.to_bytes(32, "big"))}
        canonical = json.dumps(self.public_jwk, separators=(",", ":"), sort_keys=True)
        self.thumbprint = _b64(hashlib.sha256(canonical.encode()).digest())
        """The RFC 7638 thumbprint (``cnf.jkt`` of a token bound to this key)."""

    def __repr__(self) -> str:
        return f"DPoPKey(ES256, jkt={self.thumbprint!r}, private=***)"

    @classmethod
    def generate(cls) -> DPoPKey:
        from cryptography.hazmat.primitives.asymmetric import ec

        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_record(cls, record: Mapping[str, object] | None) -> DPoPKey | None:
        """The key of a stored private JWK, or ``None`` when ``record`` is not one."""
        if not record or record.get("kty") != "EC" or record.get("crv") != "P-256":
            return None
        from cryptography.hazmat.primitives.asymmetric import ec

        try:
            values = [int.from_bytes(_unb64(str(record[name])), "big") for name in ("d", "x", "y")]
            public = ec.EllipticCurvePublicNumbers(values[1], values[2], ec.SECP256R1())
            return cls(ec.EllipticCurvePrivateNumbers(values[0], public).private_key())
        except (KeyError, ValueError):
            return None

    def record(self) -> dict[str, str]:
        """The private JWK, to store beside the tokens bound to it."""
        d = self._key.private_numbers().private_value.to_bytes(32, "big")
        record = {**self.public_jwk, "d": _b64(d)}
        remember_secrets((record["d"],))
        return record

    def proof(self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None) -> str:
        """A fresh ``dpop+jwt`` for a ``method`` request to ``url`` (its query and fragment left out)."""
        import jwt

        claims: dict[str, object] = {"jti": secrets.token_urlsafe(16), "htm": method.upper(),
                                     "htu": str(httpx2.URL(url).copy_with(query=None, fragment=None)),
                                     "iat": int(time.time())}
        if access_token is not None:
            claims["ath"] = _b64(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce is not None:
            claims["nonce"] = nonce
        proof = jwt.encode(claims, self._key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": self.public_jwk})
        remember_secrets((proof,))
        return proof


def _endpoint(request: httpx2.Request) -> str:
    return str(request.url.copy_with(query=None, fragment=None))


def _is_nonce_challenge(response: httpx2.Response, body: Mapping[str, object] | None) -> bool:
    if not response.headers.get("DPoP-Nonce"):
        return False
    if response.status_code == 401:
        return "use_dpop_nonce" in response.headers.get("WWW-Authenticate", "")
    return response.status_code == 400 and body is not None and body.get("error") == "use_dpop_nonce"


async def _json_body(response: httpx2.Response) -> dict[str, object] | None:
    if "json" not in response.headers.get("Content-Type", ""):
        return None
    try:
        loaded = json.loads(await response.aread())
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


class DPoPSigner:
    """One client's DPoP state: its key, the nonces servers gave it, whether its tokens are bound."""

    def __init__(self, key: DPoPKey | None = None) -> None:
        self.key = key or DPoPKey.generate()
        self.bound = True  # until an authorization server answers a proof with a Bearer token
        self._nonces: dict[str, str] = {}  # by endpoint: the token endpoint's and the MCP server's are apart

    def __repr__(self) -> str:
        return f"DPoPSigner({self.key!r})"

    def sign_token_request(self, request: httpx2.Request) -> httpx2.Request:
        request.headers["DPoP"] = self.key.proof(request.method, str(request.url),
                                                 nonce=self._nonces.get(_endpoint(request)))
        return request

    def sign_resource_request(self, request: httpx2.Request) -> httpx2.Request:
        """Present the request's bearer token as a DPoP-bound one, with a fresh proof."""
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme not in ("Bearer", "DPoP") or not token or not self.bound:
            request.headers.pop("DPoP", None)
            return request
        request.headers["Authorization"] = f"DPoP {token}"
        request.headers["DPoP"] = self.key.proof(request.method, str(request.url), access_token=token,
                                                 nonce=self._nonces.get(_endpoint(request)))
        return request

    async def challenged(self, request: httpx2.Request, response: httpx2.Response) -> bool:
        """Note the nonce ``response`` gives; ``True`` when it is a ``use_dpop_nonce`` challenge to answer."""
        nonce = response.headers.get("DPoP-Nonce")
        if not nonce or "DPoP" not in request.headers:
            return False
        key = _endpoint(request)
        fresh = self._nonces.get(key) != nonce
        self._nonces[key] = nonce
        body = await _json_body(response) if response.status_code == 400 else None
        return fresh and _is_nonce_challenge(response, body)

    async def token_response(self, response: httpx2.Response) -> httpx2.Response:
        """A token response as the SDK accepts it (``token_type`` ``Bearer``); notes whether the token is bound."""
        if response.status_code != 200:
            return response
        body = await _json_body(response)
        if body is None or not isinstance(body.get("token_type"), str):
            return response
        self.bound = str(body["token_type"]).lower() == "dpop"
        if not self.bound:
            return response
        content = json.dumps({**body, "token_type": "Bearer"}).encode()
        headers = [(k, v) for k, v in response.headers.multi_items()
                   if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")]
        return httpx2.Response(response.status_code, headers=headers, content=content, request=response.request)
