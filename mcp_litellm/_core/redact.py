"""Keep secrets (header values, environment values, auth objects, URL query keys) out of reprs and messages."""

from __future__ import annotations

import logging
import re
import threading
import weakref
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

_HIDDEN = "***"
_SECRET_KEYS = {"headers", "env", "auth"}
_MIN_SECRET = 6
"""Shorter values (``"1"``, ``"debug"``...) are not masked in free text: they would mangle it."""

_SECRET_PARAM = re.compile(
    r"(key|token|secret|password|passwd|pwd|signature|sig|auth|credentials?|code|verifier|assertion)$", re.I)
"""Query parameter names whose values are secrets: api_key, apiKey, key, token, access_token, secret,
an OAuth redirect's code, a PKCE code_verifier, ..."""
_OAUTH_PLAIN = {"client_id", "token_endpoint_auth_method", "scopes", "redirect_uri", "client_metadata_url", "grant",
                "signing_algorithm", "timeout", "issuer"}
"""``oauth`` settings shown as they are (public values: the issuer is the authorization server's public URL);
the others (client_secret, private_key, token_key, ...) are masked."""
_QUERY_PAIR = re.compile(r"([?&;])([^=&;#?\s]+)=([^&;#\s'\"]*?)(?=[&;#\s'\"]|[:,.);]+(?:\s|$)|$)")
"""A query pair in free text; punctuation after a URL that ends a phrase (``...?key=v: it answered``) stays."""


_USERINFO_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@]*):([^/\s@]+)@")
"""The password of a URL's user information: ``https://user:password@host``."""
def redact_url(text: str) -> str:
    """``text`` (a URL, or any text with URLs in it) with secret query values and the password of a URL's
    user information masked: ``?api_key=***``, ``https://user:***@host``."""
    if "@" in text:
        text = _USERINFO_PASSWORD.sub(lambda match: f"{match.group(1)}:{_HIDDEN}@", text)
    if "=" not in text:
        return text

    def mask(match: re.Match[str]) -> str:
        separator, name, value = match.groups()
        return f"{separator}{name}={_HIDDEN}" if value and _SECRET_PARAM.search(name) else match.group(0)

    return _QUERY_PAIR.sub(mask, text)


def url_secrets(url: str) -> list[str]:
    """The values :func:`redact_url` masks in ``url`` (secret query values, a user information password),
    decoded as well as raw: a server that echoes one (decoded) in an error shows it without the URL around it."""
    from urllib.parse import unquote_plus

    found = [match.group(3) for match in _QUERY_PAIR.finditer(url)
             if match.group(3) and _SECRET_PARAM.search(match.group(2))]
    found += [match.group(2) for match in _USERINFO_PASSWORD.finditer(url)]
    return [*found, *(unquote_plus(value) for value in found)]


def redact_config(config: Mapping[str, object]) -> dict[str, object]:
    """A copy of a transport config safe to show: header/env values, auth objects and secret URL query
    values are masked."""
    shown: dict[str, object] = {}
    for key, value in config.items():
        if key == "oauth" and isinstance(value, Mapping):
            shown[key] = {k: _oauth_value(k, v) for k, v in value.items()}
        elif key == "auth" and isinstance(value, str):
            shown[key] = value
        elif key in _SECRET_KEYS and isinstance(value, Mapping):
            shown[key] = {k: _HIDDEN for k in value}
        elif (key in _SECRET_KEYS and value is not None) or key == "server":
            shown[key] = f"<{type(value).__name__}>"
        elif key == "url" and isinstance(value, str):
            shown[key] = redact_url(value)
        else:
            shown[key] = value
    return shown


_SHOWN_MAX = 300
"""Characters of a wrong value an error message quotes (see :func:`shown_value`)."""
_SECRET_NAME = re.compile(r"(key|token|secret|password|passwd|pwd|credential|cookie|authorization|auth)", re.I)
"""Mapping keys whose values :func:`shown_value` masks wherever they are nested (``API_KEY``, ``x-auth-token``)."""


def shown_value(value: object) -> str:
    """The ``repr`` of a wrong value, safe to quote in an error message: a mapping is shown as
    :func:`redact_config` shows a config (``env``/``headers`` values, auth objects, URL query secrets
    masked), and any nested value whose key names a secret (``API_KEY``, ``token``...) is masked too;
    known secrets and secret URL query values are masked in the rest; long values are cut."""
    text = redact_text(repr(_masked_value(value, 0)))
    return text if len(text) <= _SHOWN_MAX else f"{text[:_SHOWN_MAX]}\u2026"


def _masked_value(value: object, depth: int) -> object:
    if depth > 4:
        return "..."
    if isinstance(value, Mapping):
        shown = redact_config({str(k): v for k, v in value.items()}) if depth == 0 else dict(value)
        return {k: (_HIDDEN if isinstance(k, str) and _SECRET_NAME.search(k) and isinstance(v, str)
                    else _masked_value(v, depth + 1)) for k, v in shown.items()}
    if isinstance(value, list | tuple):
        return [_masked_value(item, depth + 1) for item in value]
    if isinstance(value, str):
        return redact_url(value)
    return value


def _oauth_value(key: str, value: object) -> object:
    if key in _OAUTH_PLAIN or value is None:
        return value
    if key == "storage" and isinstance(value, str):
        return value
    return f"<{type(value).__name__}>" if key in ("authorize", "storage") else _HIDDEN


_MIN_REMEMBERED = 8
"""Values masked everywhere are at least this long: shorter ones are more often words than credentials."""
_AUTH_SCHEMES = {"bearer", "basic", "token", "digest", "apikey", "api-key"}
_LOOSE_MAX = 256
"""Secrets remembered without an owner (a one-time OAuth code, a PKCE verifier) that are kept: the newest."""


class _KnownSecrets:
    """The secrets masked in every log record and error: each set belongs to an owner (a client's transport,
    an OAuth provider) and goes when the owner is forgotten (:func:`forget_secrets`, when its client stops)
    or collected; values remembered without an owner are kept up to :data:`_LOOSE_MAX`, newest first. So the
    set never grows for the life of the process: in a ``ClientPool``, a user's token leaves with their client."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owned: weakref.WeakKeyDictionary[object, frozenset[str]] = weakref.WeakKeyDictionary()
        self._loose: dict[str, None] = {}
        self._all: frozenset[str] = frozenset()

    def add(self, found: set[str], owner: object | None) -> None:
        with self._lock:
            if owner is None:
                for value in found:
                    self._loose.pop(value, None)
                    self._loose[value] = None
                while len(self._loose) > _LOOSE_MAX:
                    del self._loose[next(iter(self._loose))]
            else:
                self._owned[owner] = self._owned.get(owner, frozenset()) | found
            self._update()

    def forget(self, owner: object) -> None:
        with self._lock:
            if self._owned.pop(owner, None) is not None:
                self._update()

    def _update(self) -> None:
        self._all = frozenset().union(self._loose, *self._owned.values())

    def values(self) -> frozenset[str]:
        """All known secrets now (an owner collected since the last change may still be in: harmless)."""
        return self._all


_known = _KnownSecrets()


def remember_secrets(values: Iterable[object], owner: object | None = None) -> None:
    """Add values (a server's ``env`` values, header values, credentials) to the secrets masked in every
    log record of ``mcp_litellm``, the MCP SDK and its HTTP client, and in every mcp_litellm error, for as
    long as ``owner`` lives or until :func:`forget_secrets` (``owner`` left out: one of the newest few
    hundred such values)."""
    found: set[str] = set()
    for value in values:
        if not isinstance(value, str):
            continue
        if len(value) >= _MIN_REMEMBERED:
            found.add(value)
        scheme, _, credential = value.partition(" ")
        if scheme.lower() in _AUTH_SCHEMES and len(credential.strip()) >= _MIN_REMEMBERED:
            found.add(credential.strip())  # "Bearer <token>": the token alone may be quoted too
    if found:
        _known.add(found, owner)


def forget_secrets(owner: object | None) -> None:
    """Stop masking the secrets remembered for ``owner`` (its client stopped); nothing for ``None``."""
    if owner is not None:
        _known.forget(owner)


def known_secrets() -> frozenset[str]:
    """The secrets masked everywhere right now."""
    return _known.values()


def secret_params(params: Mapping[str, object]) -> list[str]:
    """The string values of LiteLLM call parameters whose names say they hold a secret (``api_key``,
    ``aws_secret_access_key``, ``vertex_credentials_token``, ...: names with key, token or secret in them)."""
    return [value for key, value in params.items()
            if isinstance(value, str) and any(word in key.lower() for word in ("key", "token", "secret"))]


def short_token(value: str, keep: int = 6) -> str:
    """An identifier that may act as a bearer token (a task id), cut for logs, reprs and error messages:
    enough to tell two apart, not enough to use."""
    return value if len(value) <= keep else f"{value[:keep]}\u2026"


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value (say, a server's ``env`` values, and every value given to
    :func:`remember_secrets`) and every secret URL query value replaced by ``***``."""
    for secret in (*secrets, *_known.values()):
        if len(secret) >= _MIN_SECRET and secret in text:
            text = text.replace(secret, _HIDDEN)
    return redact_url(text)


def redact_chain(error: BaseException | None, secrets: Iterable[str] = ()) -> None:
    """Mask secrets (as :func:`redact_text` does) in ``error`` and every exception chained to it
    (``__cause__``, ``__context__``, the members of exception groups), in place: their ``args``, string
    attributes and notes. ``traceback.format_exception`` and the interpreter print every exception of a
    chain, so a URL with ``?api_key=`` in a dependency's message (httpx's ``HTTPStatusError``) would show
    below our masked one otherwise."""
    secrets = tuple(secrets)
    seen: set[int] = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        _redact_exception(current, secrets)
        pending += [current.__cause__, current.__context__, *getattr(current, "exceptions", ())]


def _redact_exception(error: BaseException, secrets: tuple[str, ...]) -> None:
    def masked(value: object) -> object:
        return _masked_data(value, secrets, 0)

    try:
        args = tuple(masked(arg) for arg in error.args)
        if args != error.args:
            error.args = args
        for name, value in list(getattr(error, "__dict__", {}).items()):
            if name == "__notes__" and isinstance(value, list):
                value[:] = [masked(note) for note in value]
            elif isinstance(value, str | BaseModel | Mapping | list | tuple):
                shown = masked(value)
                if shown is not value and shown != value:
                    setattr(error, name, shown)
    except Exception:  # an exception type that refuses new values: nothing more can be done for it
        return


def _masked_data(value: object, secrets: tuple[str, ...], depth: int) -> object:
    """``value`` with secrets masked in its strings, looking into the data an exception carries: the SDK's
    ``MCPError`` keeps its message (what ``str()`` shows) in a pydantic ``ErrorData``, its ``data`` in
    there too. Unchanged values are returned as they are (the same object)."""
    if isinstance(value, str):
        shown = redact_text(value, secrets)
        return value if shown == value else shown
    if depth > 5:
        return value
    if isinstance(value, BaseModel):
        changes: dict[str, object] = {}
        for field in type(value).model_fields:
            current = getattr(value, field, None)
            masked = _masked_data(current, secrets, depth + 1)
            if masked is not current:
                changes[field] = masked
        return value.model_copy(update=changes) if changes else value
    if isinstance(value, Mapping):
        items = {k: _masked_data(v, secrets, depth + 1) for k, v in value.items()}
        return items if any(items[k] is not v for k, v in value.items()) else value
    if isinstance(value, list | tuple):
        shown_items = [_masked_data(item, secrets, depth + 1) for item in value]
        if all(a is b for a, b in zip(shown_items, value, strict=True)):
            return value
        return type(value)(shown_items) if isinstance(value, tuple) and type(value) is tuple else shown_items
    return value


_MASKED_LOGGERS = ("mcp", "httpx", "httpcore")
"""Logger name prefixes whose records are masked (``mcp`` covers ``mcp_litellm`` and the SDK)."""


class MaskingFilter(logging.Filter):
    """Masks known secrets in each record of the logger it is on (:func:`mask_record`); keeps every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        mask_record(record)
        return True


_MASKING = MaskingFilter()


def mask_record(record: logging.LogRecord) -> None:
    """Mask known secrets in a log record's message, arguments and exception text, in place."""
    try:
        message = record.getMessage()
    except Exception:  # a record whose arguments do not fit its format: leave it to the handler
        return
    masked = redact_text(message)
    if masked != message:
        record.msg, record.args = masked, ()
    if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
        text = logging.Formatter().formatException(record.exc_info)
        masked = redact_text(text)
        if masked != text:
            record.exc_text = masked  # handlers print exc_text when it is set


def install_log_masking() -> None:
    """Mask secrets in the records of the ``mcp*``, ``httpx*`` and ``httpcore*`` loggers, whatever handler
    they reach: a :class:`MaskingFilter` on each of those loggers that exists (a logger's filters see the
    records made on it, before any handler does). Idempotent and cheap; a client calls it as it starts, so
    the loggers of modules imported since (the OAuth flow's) are covered from their first session."""
    loggers = logging.root.manager.loggerDict
    for name in (*_MASKED_LOGGERS, "mcp_litellm", *list(loggers)):
        if name.startswith(_MASKED_LOGGERS):
            logger = logging.getLogger(name)
            if _MASKING not in logger.filters:
                logger.addFilter(_MASKING)
