"""A client's options, described once: :class:`ClientOptions` (frozen, validated) and the typed keyword set.

``Client(...)`` / ``ml.client(...)`` and a config file's entry (``load_config``) both build a
:class:`ClientOptions` with :meth:`ClientOptions.checked`, so each option has one rule and one message
(the config file's wording: "must be a positive integer, got 0"); only how the message starts differs
(``"request_timeout must be ..."`` in code, ``"config.json: server 'x', key 'requestTimeout': must be ..."`` in a
file). :func:`client_settings` is what ``Client.__init__`` runs first: the options, the transport's name
(inferred as config files infer it) and its :mod:`spec <mcp_litellm._transports.specs>`.

:class:`ClientOptionsDict` types ``**client_options`` of ``ClientGroup`` and ``ClientPool``
(``Unpack[ClientOptionsDict]``), so a misspelt option is a type error, and :func:`check_option_names` a
:class:`~mcp_litellm.ConfigError` naming the closest option at run time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, TypedDict

from mcp_litellm._core.errors import ConfigError
from mcp_litellm._core.option_checks import (
    MESSAGE_SIZE,
    Door,
    closest,
    is_message_size,
    is_positive_int,
    option_door,
    seconds_problem,
)
from mcp_litellm._core.redact import shown_value
from mcp_litellm._transports import canonical_transport_name, infer_transport
from mcp_litellm._transports.messages import DEFAULT_MAX_MESSAGE_SIZE
from mcp_litellm._transports.specs import BUILTIN_TRANSPORTS, TransportSpec, transport_spec

if TYPE_CHECKING:
    from mcp_litellm._client.handler_types import ApprovalHandlerArg, ElicitationArg, RootsArg, SamplingArg
    from mcp_litellm._client.notifications import SessionLostHandler
    from mcp_litellm._client.pins import PinStore
    from mcp_litellm._core.types import NotGiven

__all__ = [
    "ClientOptions", "ClientOptionsDict", "GroupClientOptions", "check_option_names", "client_settings", "is_protocol",
]


def is_protocol(value: object) -> bool:
    """``"auto"``, ``"legacy"`` or a protocol version string (``"2025-11-25"``)."""
    return isinstance(value, str) and (value in ("auto", "legacy") or value[:4].isdigit())


_PROTOCOL_WHAT = "'auto', 'legacy' or a protocol version such as '2025-11-25'"


@dataclass(frozen=True)
class ClientOptions:
    """A client's scalar options, checked (see ``Client`` for what each means)."""

    request_timeout: float = 30.0
    reset_timeout_on_progress: bool = False
    with_prefix: bool = False
    max_result_chars: int | None = None
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    retry_idempotent: bool = True
    max_total_timeout: float | None = None
    protocol: str = "auto"
    apps: bool = False

    @classmethod
    def checked(cls, given: Mapping[str, object], door: Door | None = None) -> ClientOptions:
        """The options ``given`` (by their names here; others are refused), each checked by its rule, in
        field order; a wrong one raises ``door.error(option, problem)`` (default: ``"<option> <problem>"``)."""
        door = door or option_door()
        names = [f.name for f in fields(cls)]
        for name in given:
            if name not in names:
                raise door.error(name, "is not a client option")
        values: dict[str, object] = {}
        for name in names:
            if name in given:
                values[name] = _checked(name, given[name], door)
        return cls(**values)  # type: ignore[arg-type]  # each value checked by its rule just above


def _checked(name: str, value: object, door: Door) -> object:
    """``value`` as option ``name`` wants it (seconds as ``float``), or ``door.error(name, problem)``."""
    problem: str | None = None
    if name == "request_timeout":
        problem = seconds_problem(value, allow_inf=True)
    elif name == "max_total_timeout":
        problem = seconds_problem(value, none="for no cap")
    elif name in ("reset_timeout_on_progress", "with_prefix", "retry_idempotent", "apps"):
        problem = None if isinstance(value, bool) else f"must be {door.flag}, got {door.shown(value)}"
    elif name == "max_result_chars":
        if value is not None and not is_positive_int(value):
            none = "" if door.file else " (or None for no cut)"
            problem = f"must be a positive integer{none}, got {door.shown(value)}"
    elif name == "max_message_size":
        problem = None if is_message_size(value) else f"must be {MESSAGE_SIZE.what}, got {door.shown(value)}"
    elif name == "protocol":
        problem = None if is_protocol(value) else f"must be {_PROTOCOL_WHAT}, got {door.shown(value)}"
    if problem is not None:
        raise door.error(name, problem)
    return float(value) if name.endswith("timeout") and isinstance(value, int | float) else value


class GroupClientOptions(TypedDict, total=False):
    """The client options ``ClientGroup`` and ``ClientPool`` pass to every client (``**client_options``): a
    misspelt key is a type error. (``with_prefix`` is the group's own option there.)"""

    request_timeout: float
    reset_timeout_on_progress: bool
    max_total_timeout: float | None
    protocol: str
    max_result_chars: int | None
    max_message_size: int
    sampling: SamplingArg | NotGiven
    elicitation: ElicitationArg | NotGiven
    roots: RootsArg | NotGiven
    human_in_the_loop: ApprovalHandlerArg | NotGiven | None
    on_human_in_the_loop: ApprovalHandlerArg | NotGiven | None
    tool_pins: str | os.PathLike[str] | PinStore | None
    retry_idempotent: bool
    on_session_lost: SessionLostHandler | None
    apps: bool


class ClientOptionsDict(GroupClientOptions, total=False):
    """``Client``'s keyword options (``start`` aside)."""

    with_prefix: bool


def check_option_names(given: Iterable[str], where: str, known: Iterable[str] = ()) -> None:
    """:class:`ConfigError` for a name in ``given`` that is no client option (nor in ``known``), naming the
    option it most likely misspells."""
    valid = [*GroupClientOptions.__annotations__, *known]
    unknown = sorted(set(given) - set(valid))
    if unknown:
        shown = []
        for option in unknown:
            near = closest(option, valid)
            shown.append(f"{option} (did you mean {near}?)" if near else option)
        raise ConfigError(f"unknown option(s) for {where}: {', '.join(shown)}")


@dataclass(frozen=True)
class ClientSettings:
    """What ``Client.__init__`` starts from: the canonical transport name, its config (without a
    ``transport`` key), its checked spec, and the checked options."""

    transport_type: str
    config: dict[str, object]
    spec: TransportSpec
    options: ClientOptions


def client_settings(name: object, transport_type: object, config: object,
                    options: Mapping[str, object]) -> ClientSettings:
    """Check a client's name, transport, config and scalar options at once (the top of ``Client.__init__``)."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"a client needs a non-empty name, got {shown_value(name)}")
    if config is not None and not isinstance(config, Mapping):
        raise ConfigError(f"config must be a mapping, got {type(config).__name__}")
    checked = ClientOptions.checked(options)
    given: dict[str, object] = {str(k): v for k, v in (config or {}).items()}
    named = given.get("transport")
    canonical = canonical_transport_name(
        transport_type or (named if isinstance(named, str) else None) or infer_transport(given) or "stdio")  # type: ignore[arg-type]  # canonical_transport_name says what is wrong with it
    given = _without_transport_key(given, canonical, name)
    spec = transport_spec(canonical, given, _config_door(name))
    return ClientSettings(canonical, given, spec, checked)


def _config_door(name: str) -> Door:
    def error(key: str | None, problem: str) -> ConfigError:
        return ConfigError(f"client {name!r}, config key {key!r}: {problem}" if key else f"client {name!r}: {problem}")

    return Door(error)


def _without_transport_key(config: dict[str, object], transport_type: str, name: str) -> dict[str, object]:
    """A built-in transport's config without its ``transport`` key (see ``ml.StdioConfig``), which must agree
    with ``transport_type``; a registered transport's factory gets its config as given."""
    named = config.get("transport")
    if named is None or transport_type not in BUILTIN_TRANSPORTS:
        return config
    if not isinstance(named, str) or canonical_transport_name(named) != transport_type:
        raise ConfigError(f"client {name!r}: config key 'transport' is {named!r} but the transport is "
                          f"{transport_type!r}; drop one of them or make them agree")
    del config["transport"]
    return config
