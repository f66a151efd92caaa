"""The enterprise parts of the test authorization server (tests/auth/oauth_server.py), as an ASGI layer in front of it.

- An enterprise IdP's token endpoint at ``/idp/token``: RFC 8693 token exchange of a known ID token
  (``id_tokens``: token -> user) for an ID-JAG (``oauth-id-jag+jwt``, HS256 with the IdP's key) naming the
  audience and resource asked for.
- The RFC 7523 JWT-bearer grant at ``/token``: an ID-JAG from the IdP (for ``APP_CLIENT``, client_secret_basic)
  or a workload JWT (``WORKLOAD_CLIENT``, a public client) signed with ``WORKLOAD_KEY`` whose ``aud`` is the
  issuer and that is not expired; anything else is refused with ``invalid_grant``.
- DPoP (RFC 9449) when ``dpop`` is on: a proof is checked on every token request (``htm``, ``htu``, ``iat``,
  unique ``jti``, the signature by the embedded key) and the token issued is bound to it (``token_type``
  ``DPoP``); ``/mcp`` then takes ``Authorization: DPoP`` with a proof carrying ``ath`` by the same key only.
  With ``nonce`` set, both ask for it first (``use_dpop_nonce``).

Everything it saw is in ``log``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any
from urllib.parse import parse_qs

import jwt

from tests.auth.oauth_server import APP_CLIENT, OAuthServer, _json, _read, _replay, _rewrite_json

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
WORKLOAD_CLIENT = "workload-client"
WORKLOAD_KEY = "workload-signing-key-0123456789abcdef"
IDP_KEY = "idp-signing-key-0123456789abcdef0123"
AS_NONCE = "as-nonce-1"
RS_NONCE = "rs-nonce-1"


def workload_jwt(audience: str, *, subject: str = "spiffe://example/workload", lifetime: int = 300) -> str:
    """A workload token as a platform would mount it."""
    now = int(time.time())
    return jwt.encode({"iss": "https://platform.example", "sub": subject, "aud": audience, "iat": now,
                       "exp": now + lifetime}, WORKLOAD_KEY, algorithm="HS256")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _thumbprint(jwk: dict[str, Any]) -> str:
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return _b64(hashlib.sha256(canonical.encode()).digest())


class Enterprise:
    """ASGI layer: the IdP, the JWT-bearer grant and DPoP, in front of an :class:`OAuthServer`'s app."""

    def __init__(self, server: OAuthServer, *, dpop: bool = False, nonce: bool = False) -> None:
        self.server = server
        self.dpop = dpop
        self.nonce = nonce
        self.id_tokens: dict[str, str] = {}
        self.log: list[str] = []
        self.bound: dict[str, str] = {}  # access token -> jkt
        self.jtis: set[str] = set()
        self.app: Any = None

    def wrap(self, app: Any) -> Enterprise:
        self.app = app
        return self

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == "/idp/token" and scope["method"] == "POST":
            await self._idp(await _read(receive), send)
            return
        if path == "/token" and scope["method"] == "POST":
            await self._token(scope, receive, send)
            return
        if path == "/mcp" and self.dpop:
            await self._resource(scope, receive, send)
            return
        await self.app(scope, receive, send)

    # -- the IdP ------------------------------------------------------------------------------------------

    async def _idp(self, body: bytes, send: Any) -> None:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        user = self.id_tokens.get(form.get("subject_token", ""))
        if (form.get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" or user is None
                or form.get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag"):
            self.log.append("idp:refused")
            await _json(send, 400, {"error": "invalid_grant", "error_description": "unknown ID token"})
            return
        self.log.append(f"idp:{user}")
        now = int(time.time())
        jag = jwt.encode({"iss": "https://idp.example", "sub": user, "aud": form.get("audience"),
                          "resource": form.get("resource"), "client_id": APP_CLIENT[0], "iat": now, "exp": now + 300},
                         IDP_KEY, algorithm="HS256", headers={"typ": "oauth-id-jag+jwt"})
        await _json(send, 200, {"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                                "token_type": "N_A"})

    # -- the token endpoint -------------------------------------------------------------------------------

    def _check_proof(self, headers: dict[str, str], method: str, url: str, token: str | None,
                     nonce: str) -> tuple[str | None, str | None]:
        """``(jkt, None)`` for a good proof, else ``(None, error)``; ``error`` ``use_dpop_nonce`` asks for it."""
        proof = headers.get("dpop")
        if not proof or "," in proof:
            return None, "invalid_dpop_proof"
        try:
            header = jwt.get_unverified_header(proof)
            key = jwt.PyJWK(header["jwk"], "ES256")
            claims = jwt.decode(proof, key.key, algorithms=["ES256"])
        except (jwt.PyJWTError, KeyError):
            return None, "invalid_dpop_proof"
        if (header.get("typ") != "dpop+jwt" or "d" in header["jwk"] or claims.get("htm") != method
                or claims.get("htu") != url or abs(time.time() - claims.get("iat", 0)) > 60
                or claims.get("jti") in self.jtis):
            return None, "invalid_dpop_proof"
        self.jtis.add(claims["jti"])
        if token is not None and claims.get("ath") != _b64(hashlib.sha256(token.encode()).digest()):
            return None, "invalid_dpop_proof"
        if self.nonce and claims.get("nonce") != nonce:
            return None, "use_dpop_nonce"
        return _thumbprint(header["jwk"]), None

    async def _token(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        body = await _read(receive)
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        grant = form.get("grant_type", "")
        jkt = None
        if self.dpop:
            jkt, error = self._check_proof(headers, "POST", f"{self.server.base}/token", None, AS_NONCE)
            if error is not None:
                self.log.append(f"token:{error}")
                await _send(send, 400, {"error": error}, [(b"dpop-nonce", AS_NONCE.encode())] if self.nonce else [])
                return
        if grant == JWT_BEARER:
            await self._jwt_bearer(form, headers, send, jkt)
            return
        if jkt is None:
            await self.app(scope, _replay(body, receive), send)
            return
        self.log.append(f"token:{grant}:dpop")

        def bind(answer: dict[str, Any]) -> dict[str, Any]:
            if "access_token" in answer:
                self.bound[answer["access_token"]] = jkt
                return {**answer, "token_type": "DPoP"}
            return answer

        await _rewrite_json(self.app, scope, _replay(body, receive), send, bind)

    async def _jwt_bearer(self, form: dict[str, str], headers: dict[str, str], send: Any, jkt: str | None) -> None:
        assertion = form.get("assertion", "")
        try:
            claims = jwt.decode(assertion, WORKLOAD_KEY, algorithms=["HS256"], audience=self.server.issuer)
            client, subject = WORKLOAD_CLIENT, claims["sub"]
            ok = form.get("client_id") == WORKLOAD_CLIENT
        except jwt.PyJWTError:
            try:
                claims = jwt.decode(assertion, IDP_KEY, algorithms=["HS256"], audience=self.server.issuer)
                client, subject = APP_CLIENT[0], claims["sub"]
                basic = base64.b64encode(f"{APP_CLIENT[0]}:{APP_CLIENT[1]}".encode()).decode()
                ok = headers.get("authorization") == f"Basic {basic}" and claims.get("resource") == form.get("resource")
            except jwt.PyJWTError:
                ok, client, subject = False, "", ""
        if not ok:
            self.log.append("jwt_bearer:refused")
            await _json(send, 400, {"error": "invalid_grant", "error_description": "assertion refused"})
            return
        self.log.append(f"jwt_bearer:{subject}")
        token = self.server.provider.issue(client, ["mcp"], form.get("resource"), refresh=False, subject=subject)
        answer = token.model_dump(mode="json", exclude_none=True)
        if jkt is not None:
            self.bound[token.access_token] = jkt
            answer["token_type"] = "DPoP"
        await _json(send, 200, answer)

    # -- the resource server ------------------------------------------------------------------------------

    async def _resource(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if not token:
            await self.app(scope, receive, send)  # its 401 starts the flow
            return
        if scheme != "DPoP" or token not in self.bound:
            self.log.append(f"mcp:refused {scheme}")
            await _send(send, 401, {"error": "invalid_token"}, [(b"www-authenticate", b'DPoP error="invalid_token"')])
            return
        jkt, error = self._check_proof(headers, scope["method"], f"{self.server.base}/mcp", token, RS_NONCE)
        if error == "use_dpop_nonce":
            self.log.append("mcp:use_dpop_nonce")
            await _send(send, 401, {"error": error}, [(b"www-authenticate", b'DPoP error="use_dpop_nonce"'),
                                                      (b"dpop-nonce", RS_NONCE.encode())])
            return
        if error is not None or jkt != self.bound[token]:
            self.log.append("mcp:bad proof")
            await _send(send, 401, {"error": "invalid_dpop_proof"}, [(b"www-authenticate", b"DPoP")])
            return
        self.log.append("mcp:dpop")
        rewritten = [(k, v) for k, v in scope["headers"] if k.lower() not in (b"authorization", b"dpop")]
        await self.app({**scope, "headers": [*rewritten, (b"authorization", f"Bearer {token}".encode())]},
                       receive, send)


async def _send(send: Any, status: int, payload: dict[str, Any], extra: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *extra]})
    await send({"type": "http.response.body", "body": body})
