"""OAuth 2.1 for the HTTP transports, wrapped around the SDK's ``mcp.client.auth`` providers.

:func:`oauth_auth` builds the ``httpx2.Auth`` for an HTTP server's ``oauth`` settings: the SDK's
``OAuthClientProvider`` (authorization code with PKCE, discovery, dynamic registration or a Client ID
Metadata Document) or its client-credentials / private-key-JWT providers, each extended by
:class:`_Guarded`, which adds what the SDK leaves to its callers:

- the user agent: the browser opened on the authorization URL and a one-shot loopback listener for
  the redirect, the URL printed and the redirected URL read back from stdin where no browser can
  open, or the user's ``authorize`` callable; the wait is bounded by ``oauth.timeout`` and the
  request's own timeout is suspended while a person is at work;
- tokens that outlive the process (:mod:`.oauth_storage`), refreshed shortly before they expire;
- the client's authentication at the token endpoint: a dynamic registration asks for a public client
  (``token_endpoint_auth_method`` ``"none"``, RFC 8252) unless ``oauth.token_endpoint_auth_method``
  asks for a secret, and a client secret goes by the method the user set, else the one the
  registration names, else one the authorization server lists as supported;
- failures as :class:`~mcp_litellm.AuthError` with a fix, never a secret (:mod:`.oauth_errors`).
  The SDK's transports would end the whole session on an exception in the auth flow (streamable
  HTTP) or swallow it (SSE), so the flow records the error in the request's :class:`~.http.HttpObserver` and lets the
  request go out without credentials; the server's 401 then fails the request, and the connection
  raises the recorded error.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable

import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
)
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthToken,
)

from mcp_litellm._core.errors import AuthError
from mcp_litellm._core.redact import remember_secrets
from mcp_litellm._core.sdk_compat import (
    mismatched_issuer,
    provider_initialized,
)
from mcp_litellm._transports.endpoint_policy import endpoint_problem, origin
from mcp_litellm._transports.oauth.dpop import DPoPKey, DPoPSigner
from mcp_litellm._transports.oauth.errors import Client, describe_failure
from mcp_litellm._transports.oauth.settings import OAuthSettings
from mcp_litellm._transports.oauth.storage import TokenStore
from mcp_litellm._transports.oauth.user_agent import NO_BROWSER_ENV, UserAgent
from mcp_litellm._transports.observer import http_observer

__all__ = ["AUTH_FINAL", "NO_BROWSER_ENV", "is_oauth"]

logger = logging.getLogger("mcp_litellm.oauth")

AUTH_FINAL = "mcp_litellm.auth_final"
"""Request extension set on a request the auth flow will not retry again (a 401 to it is final)."""


def is_oauth(auth: object) -> bool:
    """True for an ``httpx2.Auth`` built by :func:`oauth_auth`."""
    return isinstance(auth, _Guarded)


# -- token endpoint authentication -------------------------------------------------------------------


def _auth_method_for(supported: list[str] | None) -> str:
    """How to send a client secret to a server that supports ``supported`` (its metadata's
    ``token_endpoint_auth_methods_supported``): ``client_secret_basic`` where listed, or where nothing is
    listed (the default, RFC 8414 §2), else ``client_secret_post`` where listed."""
    if supported and "client_secret_basic" not in supported and "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


def _refresh_margin(lifetime: int) -> float:
    """Seconds before its expiry at which an access token is refreshed: 10% of its lifetime, at least
    5 s (half the lifetime of a shorter-lived token), at most 60 s.

    The floor matters for short-lived tokens: a server that rounds the expiry down to a whole second, and
    the time the response took, make the server's clock run out up to a second or two before ours. A token
    sent in that gap is refused with a 401, and the SDK answers a 401 with a new authorization (a person
    asked again) rather than a refresh."""
    return min(60.0, max(0.1 * lifetime, min(5.0, 0.5 * lifetime)))


class _RefusedEndpoint(AuthError):
    """An OAuth request the endpoint policy refused: its message is final, not a flow failure to explain."""


# -- the providers -------------------------------------------------------------------------------------


class _Guarded(OAuthClientProvider):
    """What every provider gets on top of the SDK's flow (see the module docstring).

    The SDK has no public hooks for this: the private methods overridden here (each calls ``super()``)
    are listed in :data:`~mcp_litellm._core.sdk_compat.OAUTH_PROVIDER_HOOKS`, where a test pins that the
    SDK still calls each of them."""

    _label: str
    _settings: OAuthSettings
    _store: TokenStorage
    _refresh_failed: bool
    _step_up: bool
    _legacy_issuer: str | None
    _failure_watchers: list[Callable[[], None]]
    _loaded: bool
    _loaded_client_id: str | None
    _auth_method: str | None
    _guessed_for: OAuthClientInformationFull | None
    _dpop: DPoPSigner | None

    def _guard(self, label: str, settings: OAuthSettings, store: TokenStorage) -> None:
        self._label = label
        self._settings = settings
        self._store = store
        self._refresh_failed = False
        self._step_up = False
        self._legacy_issuer = None
        self._failure_watchers = []
        self._loaded, self._loaded_client_id = False, None
        self._auth_method = self._guessed_for = None
        self._dpop = None

    def watch_failures(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` whenever a flow fails (the SSE transport ends its session then, since the SDK's
        SSE writer swallows the failure); returns the function that stops watching."""
        self._failure_watchers.append(callback)

        def stop() -> None:
            if callback in self._failure_watchers:
                self._failure_watchers.remove(callback)

        return stop

    def __repr__(self) -> str:
        return f"<{type(self).__name__} for {self._label} (grant {self._settings.grant})>"

    def _remember_secrets(self) -> None:
        """Register the secrets this provider holds with the log and error masking (defence in depth:
        none of them is meant to reach a log record or a message in the first place)."""
        tokens, info = self.context.current_tokens, self.context.client_info
        remember_secrets((tokens.access_token, tokens.refresh_token) if tokens is not None else (), self)
        remember_secrets((info.client_secret,) if info is not None else (), self)

    async def _initialize(self) -> None:
        await super()._initialize()
        store = self._store
        if self._settings.dpop:  # the key stored with the tokens; the nonces servers gave, kept
            stored = DPoPKey.from_record(store.dpop_key()) if isinstance(store, TokenStore) else None
            if self._dpop is None:
                self._dpop = DPoPSigner(stored)
            elif stored is not None:
                self._dpop.key = stored
        tokens = self.context.current_tokens
        if isinstance(store, TokenStore) and tokens is not None:
            self.context.token_expiry_time = store.expires_at()
            await self._refresh_early()
        self._remember_secrets()
        info = self.context.client_info
        if info is not None and info.issuer and origin(info.issuer) == origin(self.context.server_url):
            self._legacy_issuer = info.issuer  # used only if the server still has no resource metadata
        settings = self._settings
        if not self._loaded:  # the registration found in storage at the start (a later run's client)
            self._loaded, self._loaded_client_id = True, info.client_id if info is not None else None
        if settings.grant == "authorization_code" and settings.client_id:
            redirect = self.context.client_metadata.redirect_uris
            self.context.client_info = OAuthClientInformationFull(
                client_id=settings.client_id,
                client_secret=settings.client_secret,
                redirect_uris=redirect,
                grant_types=["authorization_code", "refresh_token"],
                # None: chosen from the authorization server's metadata before the first token request
                token_endpoint_auth_method=settings.token_endpoint_auth_method or (
                    None if settings.client_secret else "none"),
            )
        elif settings.grant == "client_credentials" and info is not None:
            self.context.client_info = info.model_copy(
                update={"token_endpoint_auth_method": settings.token_endpoint_auth_method})
        elif (settings.grant == "authorization_code" and info is not None and settings.token_endpoint_auth_method
              and (settings.token_endpoint_auth_method != "none") != bool(info.client_secret)):
            # A stored registration of the other kind (public vs confidential) than the user now asks for.
            logger.info("OAuth with %s: registering anew, as a %s client (oauth.token_endpoint_auth_method)",
                        self._label, "public" if settings.token_endpoint_auth_method == "none" else "confidential")
            self.context.client_info = None
        elif settings.grant == "authorization_code" and settings.redirect_uri is None:
            # Reuse the loopback redirect URI an earlier run registered (its port is part of it).
            info = self.context.client_info
            if info is not None and info.redirect_uris:
                self.context.client_metadata.redirect_uris = list(info.redirect_uris)
                agent = self.context.redirect_handler and getattr(self.context.redirect_handler, "__self__", None)
                if isinstance(agent, UserAgent):
                    agent.redirect_uri = str(info.redirect_uris[0])

    async def _settle_auth_method(self) -> None:
        """Before a token request: how a client holding a secret sends it, when neither the user
        (``oauth.token_endpoint_auth_method``) nor the registration said (see :func:`_auth_method_for`).

        The SDK sends no secret for a client record without a method, so a dynamic registration answered
        with a secret but no method, or a pre-registered confidential client, would be refused. A choice
        made before discovery (a refresh with tokens from an earlier run) is a guess, made again once the
        authorization server's metadata is known."""
        info, metadata = self.context.client_info, self.context.oauth_metadata
        if info is not None and info is self._guessed_for and metadata is not None:
            info.token_endpoint_auth_method = None
        if info is None or not info.client_secret or info.token_endpoint_auth_method is not None:
            self._auth_method = info.token_endpoint_auth_method if info is not None else None
            return
        method = _auth_method_for(metadata.token_endpoint_auth_methods_supported if metadata is not None else None)
        info.token_endpoint_auth_method = self._auth_method = method
        self._guessed_for = info if metadata is None else None
        logger.debug("OAuth with %s: sending the client secret with %s", self._label, method)
        if metadata is not None and not self._settings.client_id and self._settings.grant == "authorization_code":
            await self.context.storage.set_client_info(info)  # a dynamic registration: keep the choice

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        # masked from here on, wherever they show up: an authorization server that echoes the request in its
        # error body would otherwise put the code and the PKCE verifier in a DEBUG log line
        remember_secrets((auth_code, code_verifier))
        await self._settle_auth_method()
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        await self._settle_auth_method()
        return await super()._refresh_token()

    async def _perform_authorization(self) -> httpx2.Request:
        configured = self._settings.scope
        if configured:
            chosen = self.context.client_metadata.scope
            self.context.client_metadata.scope = union_scopes(configured, chosen) if self._step_up else configured
        return await super()._perform_authorization()

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        ok = await super()._handle_refresh_response(response)
        if not ok:
            self._refresh_failed = True
            logger.info("OAuth with %s: the refresh token was rejected (HTTP %s); authorizing again",
                        self._label, response.status_code)
        return ok

    async def _refresh_early(self) -> None:
        """Refresh a little before the access token expires (see :func:`_refresh_margin`).

        Before that, look at the stored tokens: another client (another process, or another client of the
        same server) may have refreshed already, and the refresh token this one holds may be used up."""
        context = self.context
        tokens = context.current_tokens
        if context.token_expiry_time is None or tokens is None or not tokens.expires_in:
            return
        if time.time() < context.token_expiry_time - _refresh_margin(tokens.expires_in):
            return
        store = self._store
        if (isinstance(store, TokenStore) and store.shared and provider_initialized(self)
                and self._adopt(*await store.areload())):
            return
        context.token_expiry_time = time.time() - 1.0

    def _adopt(self, stored: OAuthToken | None, expires: float | None) -> bool:
        """Take the stored tokens when another client stored newer ones that are still fresh."""
        context, tokens = self.context, self.context.current_tokens
        if (stored is not None and expires is not None and tokens is not None
                and stored.access_token != tokens.access_token
                and stored.expires_in and time.time() < expires - _refresh_margin(stored.expires_in)):
            context.current_tokens, context.token_expiry_time = stored, expires
            self._remember_secrets()
            if self._dpop is not None and isinstance(self._store, TokenStore):  # bound to the key stored with them
                self._dpop.key = DPoPKey.from_record(self._store.dpop_key()) or self._dpop.key
            return True
        return False

    async def _locked_refresh(self) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """Refresh an expired token while holding the store's lock (a file lock or a Redis lock), so two
        clients, in one process or in several, never both spend one refresh token: the second one waits,
        then finds the first one's new tokens in the store and uses them."""
        store = self._store
        assert isinstance(store, TokenStore)
        async with self.context.lock, store.lock():
            if self.context.is_token_valid() or not self.context.can_refresh_token():
                return
            if self._adopt(*await store.areload()):
                return
            request = await self._refresh_token()
            response = yield request
            if not await self._handle_refresh_response(response):
                self.context.clear_tokens()  # the request goes out without a token; its 401 starts a new authorization

    def _expected_issuer(self) -> str:
        if self.context.auth_server_url is None and self._legacy_issuer is not None:
            return self._legacy_issuer
        return super()._expected_issuer()

    def _legacy_issuer_in(self, exc: BaseException) -> str | None:
        """The issuer of a same-origin authorization server that the SDK refused on the legacy path."""
        issuer = mismatched_issuer(exc)
        if issuer is None or self.context.auth_server_url:
            return None
        return issuer if origin(issuer) == origin(self.context.server_url) else None

    def _note_issuer(self) -> None:
        metadata = self.context.oauth_metadata
        if isinstance(self._store, TokenStore) and metadata is not None:
            self._store.current_issuer = str(metadata.issuer)

    def _client(self) -> Client:
        """The client that last authenticated at the token endpoint (for the ``invalid_client`` message)."""
        settings, info, metadata = self._settings, self.context.client_info, self.context.oauth_metadata
        client_id = info.client_id if info is not None else settings.client_id
        if settings.client_id or settings.grant != "authorization_code":
            kind = "pre-registered"
        elif settings.client_metadata_url and client_id == settings.client_metadata_url:
            kind = "metadata document"
        elif client_id is not None and client_id == self._loaded_client_id:
            kind = "stored registration"
        else:
            kind = "new registration"
        supported = metadata.token_endpoint_auth_methods_supported if metadata is not None else None
        method = self._auth_method or (info.token_endpoint_auth_method if info is not None else None)
        return Client(kind, client_id, method, tuple(supported or ()), settings.grant)

    def _failure(self, exc: BaseException) -> AuthError:
        text = describe_failure(exc, self._client())
        prefix = f"OAuth with {self._label}"
        if not text.startswith(prefix):
            text = f"{prefix} failed: {text}"
        if self._refresh_failed:
            text += " (the stored refresh token had been rejected, so a new authorization was needed)"
        error = AuthError(text, http_status=401)
        error.authorization_url = getattr(exc, "authorization_url", None)
        return error

    def _check_endpoint(self, outgoing: httpx2.Request) -> None:
        """Refuse a discovery, registration or token request to a host the flow must not reach (see
        :mod:`~mcp_litellm._transports.endpoint_policy`). A client holding a secret or key (which always has an
        ``oauth.issuer``: its settings require one) sends its flow only to that issuer's origin or the MCP
        server's own origin, ports included."""
        settings = self._settings
        problem = endpoint_problem(str(outgoing.url), server_url=self.context.server_url, issuer=settings.issuer,
                                   allow_http=settings.allow_http, credentials=settings.holds_credentials)
        if problem is not None:
            raise _RefusedEndpoint(f"OAuth with {self._label}: {problem}", http_status=None)

    def _record(self, error: AuthError) -> bool:
        """Hand ``error`` to the request's observer; ``False`` when there is none (raise it instead)."""
        logger.info("%s", error)
        for watcher in list(self._failure_watchers):
            watcher()
        observer = http_observer.get()
        if observer is None:
            return False
        if observer.auth_error is None:
            observer.auth_error = error
        return True

    def _dpop_sign(self, outgoing: httpx2.Request, original: httpx2.Request) -> httpx2.Request:
        """A fresh DPoP proof on the MCP request and on token requests (with ``oauth.dpop``; see :mod:`.dpop`)."""
        signer = self._dpop
        if signer is None:
            return outgoing
        if outgoing is original:
            return signer.sign_resource_request(outgoing)
        if outgoing.method == "POST" and outgoing.url.copy_with(query=None) == httpx2.URL(self._get_token_endpoint()):
            return signer.sign_token_request(outgoing)
        return outgoing

    async def _dpop_answer(self, outgoing: httpx2.Request, response: httpx2.Response,
                           original: httpx2.Request) -> httpx2.Response:
        """A token response as the SDK takes it; the key of newly bound tokens stored beside them."""
        signer = self._dpop
        if signer is None or outgoing is original or "DPoP" not in outgoing.headers:
            return response
        answer = await signer.token_response(response)
        if answer is not response and isinstance(self._store, TokenStore):
            await self._store.set_dpop_key(signer.key.record())
        return answer

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        observer = http_observer.get()
        if observer is not None and observer.auth_error is not None:
            # This request (or handshake, which may send two) already failed to authorize: do not ask the
            # user again; let it go out as it is and fail with the recorded error.
            request.extensions = {**request.extensions, AUTH_FINAL: True}
            yield request
            return
        if not provider_initialized(self):
            self._refresh_failed = False
        refresh: AsyncGenerator[httpx2.Request, httpx2.Response] | None = None
        try:
            if not provider_initialized(self):
                async with self.context.lock:
                    if not provider_initialized(self):
                        await self._initialize()
            await self._refresh_early()
            store = self._store
            if (isinstance(store, TokenStore) and store.shared and not self.context.is_token_valid()
                    and self.context.can_refresh_token()):
                refresh = self._locked_refresh()
                outgoing: httpx2.Request | None = None
                with contextlib.suppress(StopAsyncIteration):
                    outgoing = await refresh.__anext__()
                if outgoing is not None:  # None: another client's fresh tokens were in the store
                    answer = yield self._dpop_sign(outgoing, request)
                    if self._dpop is not None and await self._dpop.challenged(outgoing, answer):
                        answer = yield self._dpop_sign(outgoing, request)  # once, with the nonce asked for
                    answer = await self._dpop_answer(outgoing, answer, request)
                    with contextlib.suppress(StopAsyncIteration):
                        await refresh.asend(answer)
        except Exception as exc:
            error = self._failure(exc)
            if not self._record(error):
                raise error from None
            request.headers.pop("Authorization", None)
            request.extensions = {**request.extensions, AUTH_FINAL: True}
            yield request
            return
        finally:
            if refresh is not None:
                await refresh.aclose()
        flow = super()._auth_flow(request)
        sent_original = 0
        response: httpx2.Response | None = None
        retried = False
        try:
            while True:
                try:
                    outgoing = await flow.__anext__()
                    while True:
                        if outgoing is request:
                            sent_original += 1
                            if sent_original > 1:
                                request.extensions = {**request.extensions, AUTH_FINAL: True}
                        if outgoing is not request:
                            self._check_endpoint(outgoing)
                        try:
                            response = yield self._dpop_sign(outgoing, request)
                            if self._dpop is not None and await self._dpop.challenged(outgoing, response):
                                response = yield self._dpop_sign(outgoing, request)  # once, with the nonce asked for
                            response = await self._dpop_answer(outgoing, response, request)
                        except GeneratorExit:
                            if outgoing is not request:  # a discovery, registration or token request failed
                                self._record(AuthError(
                                    f"OAuth with {self._label} failed: the request to "
                                    f"{outgoing.url.copy_with(query=None)} did not complete (unreachable or too "
                                    "slow); check that the authorization server is up", http_status=None))
                            raise
                        if outgoing is request and sent_original == 1:
                            self._step_up = response.status_code == 403
                        self._note_issuer()
                        outgoing = await flow.asend(response)
                        self._remember_secrets()
                except StopAsyncIteration:
                    if sent_original > 1 and response is not None and response.status_code in (401, 403):
                        self._record(AuthError(
                            f"OAuth with {self._label} failed: the server rejected the token it had just been "
                            f"issued (HTTP {response.status_code}); check oauth.scopes and that your account may "
                            "use this server", http_status=response.status_code))
                    return
                except Exception as exc:
                    issuer = None if retried else self._legacy_issuer_in(exc)
                    if issuer is None:
                        error = exc if isinstance(exc, _RefusedEndpoint) else self._failure(exc)
                        if not self._record(error):
                            raise error from None
                        break
                    # A 2025-03-26 server (no protected-resource metadata) whose authorization server
                    # metadata, found at the server's origin, names an issuer on that same origin
                    # (``/oauth``): trust it as the spec of the day did, and run the flow once more.
                    logger.info("OAuth with %s: using the authorization server %s found at the server's origin",
                                self._label, issuer)
                    retried, self._legacy_issuer, sent_original = True, issuer, 0
                    await flow.aclose()
                    flow = super()._auth_flow(request)
        finally:
            await flow.aclose()
        # Send the request without credentials: the server's 401 ends it, and the connection raises `error`.
        request.headers.pop("Authorization", None)
        request.extensions = {**request.extensions, AUTH_FINAL: True}
        yield request


class _AuthorizationCode(_Guarded):
    pass


class _ClientCredentials(_Guarded, ClientCredentialsOAuthProvider):
    async def _exchange_token_client_credentials(self) -> httpx2.Request:
        await self._settle_auth_method()
        return await super()._exchange_token_client_credentials()


class _PrivateKeyJWT(_Guarded, PrivateKeyJWTOAuthProvider):
    pass
