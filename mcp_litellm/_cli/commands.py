"""The commands of ``mcp-litellm``: each takes the parsed arguments and returns an exit code."""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shlex
import sys
from collections.abc import Callable, Container, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from mcp_litellm._cli.argument_types import type_errors
from mcp_litellm._cli.oauth_status import auth_status, needs_login
from mcp_litellm._cli.render import ProgressBar, describe_block, dump_json, first_line, signature
from mcp_litellm._cli.server_names import command_name, url_name
from mcp_litellm._core.clean_text import clean, clean_result
from mcp_litellm._core.errors import ConfigError, NotFoundError, ServerError, TransportError
from mcp_litellm._core.redact import redact_url
from mcp_litellm._servers.config_file import ServerConfig, load_config
from mcp_litellm._servers.group import ClientGroup
from mcp_litellm._servers.resource_owner import resource_owner

PROG = "mcp-litellm"
DEMO_SERVER = "demo"
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
DEMO_NOTICE = f"{PROG}: no --config, --command or --url given: using the demo server shipped with mcp-litellm"


class UsageError(Exception):
    """A command-line mistake found after parsing (exit code 2)."""


def demo_config() -> dict[str, object]:
    """The config used without ``--config``: the demo server shipped in the package, over stdio."""
    return {"mcpServers": {DEMO_SERVER: {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}}}


def command_line_servers(args: argparse.Namespace) -> dict[str, dict[str, object]]:
    """Config entries for the servers given with ``--command`` and ``--url`` (checked, not started)."""
    entries: dict[str, dict[str, object]] = {}

    def add(name: str, entry: dict[str, object]) -> None:
        entries[_unused_name(name, entries)] = entry

    for command in args.command or ():
        try:
            argv = shlex.split(command, posix=os.name != "nt")
        except ValueError as exc:
            raise UsageError(f"--command: {exc} (give the whole command line as one quoted string)") from None
        if not argv:
            raise UsageError("--command needs a command line, e.g. --command \"npx -y "
                             "@modelcontextprotocol/server-memory\"")
        add(command_name(argv), {"command": argv[0], "args": argv[1:]})
    for url in args.url or ():
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise UsageError(f"--url needs an http:// or https:// URL, got {redact_url(url)!r}")
        add(url_name(url), {"url": url})
    return entries


def configs_for(args: argparse.Namespace) -> dict[str, ServerConfig]:
    """The servers of ``--config``, ``--command`` and ``--url`` together; without any of them, the demo
    server (said on stderr)."""
    given = command_line_servers(args)
    if not args.config and not given:
        print(DEMO_NOTICE, file=sys.stderr, flush=True)
        return load_config(demo_config())
    configs = load_config(args.config) if args.config else {}
    for name, entry in given.items():
        unique = _unused_name(name, configs)  # a config file server of the same name keeps it
        configs[unique] = next(iter(load_config({"mcpServers": {unique: entry}}).values()))
    return configs


def _unused_name(name: str, taken: Container[str]) -> str:
    """``name``, or the first of ``name-2``, ``name-3``, ... not in ``taken``."""
    unique, n = name, 2
    while unique in taken:
        unique, n = f"{name}-{n}", n + 1
    return unique


def select_servers(args: argparse.Namespace) -> tuple[dict[str, ServerConfig], dict[str, str | None],
                                                      dict[str, ServerConfig]]:
    """The servers ``--server`` selects (every configured one without it), each one's OAuth state, and
    those that may be started here: a server waiting for a person's authorization is not (starting it
    would open a browser)."""
    configs = configs_for(args)
    for name in args.server or ():
        if name not in configs:
            raise NotFoundError("server", name, configs)
    selected = {name: c for name, c in configs.items() if not args.server or name in args.server}
    auth = {name: auth_status(c) for name, c in selected.items()}
    return selected, auth, {name: c for name, c in selected.items() if not needs_login(c)}


def not_running_status(name: str, server_config: ServerConfig, group: ClientGroup,
                       startable: Container[str]) -> dict[str, object] | None:
    """The ``status`` (and ``error``) of a selected server that is not running: ``disabled``, ``login``
    (waiting for authorization) or ``failed``; ``None`` when it runs in ``group``."""
    if server_config.disabled:
        return {"status": "disabled"}
    if name not in startable:
        return {"status": "login", "error": f"not authorized: run '{PROG} login {name}'"}
    if group.get(name) is None:
        return {"status": "failed", "error": str(group.failed.get(name, "not started"))}
    return None


def for_command_line(message: object) -> str:
    """An error's text as the command line says it: without a server's terminal escapes and control
    characters (a server's own words are quoted in errors), and with its own option names where the library
    names a setting."""
    return clean_result(str(message)).replace("or raise request_timeout",
                                              "or raise --timeout (or the server's request_timeout)")


@contextmanager
def connect(args: argparse.Namespace, *, prepare: Callable[[ClientGroup], object] | None = None,
            **client_options: Any) -> Iterator[ClientGroup]:
    """Start the selected servers (failures are reported and skipped); stop them all afterwards.

    ``prepare(group)`` runs after the clients are made and before they start (to register handlers,
    whose capabilities are advertised at start).
    """
    configs = configs_for(args)
    if args.timeout is not None:
        client_options.setdefault("request_timeout", args.timeout)
    group = ClientGroup(configs, strict=False, servers=args.server, **client_options)
    if not len(group) and not group.failed:
        raise ConfigError("no enabled servers in the config" + (f" {args.config}" if args.config else ""))
    if prepare is not None:
        prepare(group)
    with group:
        if not len(group):
            if len(group.failed) == 1:
                raise next(iter(group.failed.values()))
            raise TransportError("no server could be started: " + "; ".join(map(str, group.failed.values())))
        for error in group.failed.values():
            print(f"{PROG}: warning: {for_command_line(error)}", file=sys.stderr)
        yield group


def exit_status(group: ClientGroup, *, ok: bool = True) -> int:
    """The exit code every command ends with: 1 when the operation failed (``ok`` false) or when some
    selected server did not start, else 0."""
    return EXIT_FAILED if group.failed or not ok else EXIT_OK



# -- listing ------------------------------------------------------------------------------------------


def servers(args: argparse.Namespace) -> int:
    """``mcp-litellm servers``: every configured server, whether it started, and what it offers."""
    selected, auth, startable = select_servers(args)
    options = {"request_timeout": args.timeout} if args.timeout is not None else {}
    rows: list[dict[str, Any]] = []
    with ClientGroup(startable, strict=False, **options) as group:
        for name, server_config in selected.items():
            row: dict[str, Any] = {"name": name, "transport": server_config.transport_type}
            if auth[name] is not None:
                row["auth"] = auth[name]
            stopped = not_running_status(name, server_config, group, startable)
            if stopped is not None:
                row.update(stopped)
            else:
                client = group[name]
                info = client.server_info
                row.update(status="ok", server=info.name if info else None, version=info.version if info else None,
                           protocol=client.protocol_version,
                           tools=len(client.tools()) if client.capabilities.tools is not None else 0)
            rows.append(row)
    if args.format == "json":
        dump_json(rows)
    else:
        width = max((len(r["name"]) for r in rows), default=4)
        for row in rows:
            line = f"{row['name']:<{width}}  {row['transport']:<10}  {row['status']:<8}"
            if row["status"] == "ok":
                line += (f"  {clean(row['server'] or '?')} {clean(row['version'] or '')}, protocol {row['protocol']}, "
                         f"{row['tools']} tool{'s' if row['tools'] != 1 else ''}")
            elif row["status"] in ("failed", "login"):
                line += f"  {first_line(row['error'], 200)}"
            if "auth" in row and row["status"] != "login":
                line += f"  [oauth: {row['auth']}]"
            print(line)
    return EXIT_FAILED if any(row["status"] == "failed" for row in rows) else EXIT_OK


def tools(args: argparse.Namespace) -> int:
    """``mcp-litellm tools``: the tools, as text, JSON, or the exact LiteLLM definitions."""
    if args.model and args.format != "litellm":
        raise UsageError("--model only applies to --format litellm")
    with connect(args) as group:
        listed = group.tools(include=args.include, exclude=args.exclude)
        if args.format == "litellm":
            dump_json([tool.to_litellm(args.model) for tool in listed])
        elif args.format == "json":
            dump_json([{
                "name": t.name, "server": t.client.name, "mcp_name": t.mcp_name, "title": t.title,
                "description": t.description, "input_schema": t.input_schema, "output_schema": t.output_schema,
                "annotations": t.annotations.model_dump(exclude_none=True),
            } for t in listed])
        else:
            for client in group:
                mine = [t for t in listed if t.client is client]
                print(f"{client.name}: {len(mine)} tool{'s' if len(mine) != 1 else ''}")
                for tool in mine:
                    print(f"  {signature(tool.name, tool.input_schema)}")
                    if tool.description or tool.title:
                        print(f"      {first_line(tool.description or tool.title)}")
        return exit_status(group)


def resources(args: argparse.Namespace) -> int:
    """``mcp-litellm resources``: resources and resource templates."""
    with connect(args) as group:
        listed, templates = group.resources(), group.resource_templates()
        if args.format == "json":
            dump_json({
                "resources": [{"server": r.client.name, "uri": str(r.uri), "name": r.name, "title": r.title,
                               "description": r.description, "mime_type": r.mime_type} for r in listed],
                "templates": [{"server": t.client.name, "uri_template": t.uri_template, "name": t.name,
                               "description": t.description, "mime_type": t.mime_type} for t in templates],
            })
            return exit_status(group)
        for client in group:
            mine = [r for r in listed if r.client is client]
            own_templates = [t for t in templates if t.client is client]
            print(f"{client.name}: {len(mine)} resource{'s' if len(mine) != 1 else ''}, "
                  f"{len(own_templates)} template{'s' if len(own_templates) != 1 else ''}")
            for item in mine:
                mime = f" ({item.mime_type})" if item.mime_type else ""
                print(f"  {item.uri}  {item.name}{mime}")
                if item.description:
                    print(f"      {first_line(item.description)}")
            for template in own_templates:
                mime = f" ({template.mime_type})" if template.mime_type else ""
                print(f"  {template.uri_template}  {template.name}{mime}  [template]")
                if template.description:
                    print(f"      {first_line(template.description)}")
        return exit_status(group)


def prompts(args: argparse.Namespace) -> int:
    """``mcp-litellm prompts``: prompts and their arguments."""
    with connect(args) as group:
        listed = group.prompts()
        if args.format == "json":
            dump_json([{"server": p.client.name, "name": p.name, "title": p.title, "description": p.description,
                        "arguments": [{"name": a.name, "description": a.description, "required": bool(a.required)}
                                      for a in p.arguments or []]} for p in listed])
            return exit_status(group)
        for client in group:
            mine = [p for p in listed if p.client is client]
            print(f"{client.name}: {len(mine)} prompt{'s' if len(mine) != 1 else ''}")
            for item in mine:
                arguments = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in item.arguments or [])
                print(f"  {item.name}({arguments})")
                if item.description:
                    print(f"      {first_line(item.description)}")
        return exit_status(group)


# -- single operations --------------------------------------------------------------------------------


def _value(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _json_given(given: Sequence[str]) -> bool:
    """Whether the tool arguments are one JSON object (or ``-``: one on stdin) rather than key=value pairs."""
    return len(given) == 1 and (given[0].lstrip().startswith("{") or given[0] == "-")


def parse_json_arguments(given: Sequence[str]) -> dict[str, object]:
    """The JSON object given as the tool arguments (``-`` reads it from stdin)."""
    text = sys.stdin.read() if given[0] == "-" else given[0]
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"tool arguments are not valid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(parsed, dict):
        raise UsageError(f"tool arguments must be a JSON object, got {type(parsed).__name__}")
    return parsed


def typed_arguments(pairs: dict[str, str], schema: dict[str, object]) -> dict[str, object]:
    """``key=value`` texts typed by the tool's input schema: a string property keeps the text as given
    (``q=1`` stays ``"1"``); other values are parsed as JSON when they are JSON (``a=1`` becomes 1)."""
    properties = schema.get("properties")
    typed: dict[str, object] = {}
    for key, value in pairs.items():
        kinds = _kinds(properties.get(key) if isinstance(properties, dict) else None)
        typed[key] = value if "string" in kinds and kinds <= {"string", "null"} else _value(value)
    return typed


def _kinds(prop: object) -> set[str]:
    """The JSON types a property schema allows, by ``type`` or by the branches of ``anyOf``/``oneOf``
    (``Optional[str]`` is ``anyOf: [string, null]``); empty when the schema does not say."""
    if not isinstance(prop, dict):
        return set()
    kinds = prop.get("type")
    listed = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []
    found = {kind for kind in listed if isinstance(kind, str)}
    for key in ("anyOf", "oneOf"):
        branches = prop.get(key)
        for branch in branches if isinstance(branches, list) else []:
            found |= _kinds(branch)
    return found


def _pairs(given: Sequence[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in given:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"expected key=value (or one JSON object), got {item!r}")
        pairs[key] = value
    return pairs


def call(args: argparse.Namespace) -> int:
    """``mcp-litellm call TOOL ARGS``: run one tool and print its result."""
    json_given = _json_given(args.arguments)  # read and check the arguments before starting any server
    arguments = parse_json_arguments(args.arguments) if json_given else {}
    pairs = {} if json_given else _pairs(args.arguments)
    with connect(args) as group:
        tool = group.tool(args.tool)
        if not json_given:
            arguments = typed_arguments(pairs, tool.input_schema)
        check_arguments(tool.name, arguments, tool.input_schema)
        bar = ProgressBar()
        try:
            result = tool.execute(arguments, timeout=args.timeout,
                                  on_progress=lambda p, t=None, m=None: bar.update(tool.name, p, t, m))
        finally:
            bar.end()
        if args.format == "json":
            dump_json({"is_error": result.is_error, "structured": result.structured,
                       "content": [b.model_dump(mode="json", exclude_none=True) for b in result.content]})
        else:
            lines = [describe_block(block) for block in result.content]
            text = clean_result("\n".join(lines) if lines else result.text)  # the server's text: no control characters
            if result.is_error:
                print(f"{PROG}: error: tool {tool.name!r} reported an error: {' '.join(text.split())}",
                      file=sys.stderr)
            elif text:
                print(text)
        return exit_status(group, ok=not result.is_error)


def _argument_list(schema: dict[str, object]) -> str:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "it takes no arguments"
    listed = schema.get("required")
    required = set(listed) if isinstance(listed, list) else set()
    return "arguments: " + ", ".join(f"{name}{'' if name in required else '?'}" for name in properties)


def check_arguments(tool_name: str, arguments: dict[str, object], schema: dict[str, object]) -> None:
    """Refuse arguments the tool's input schema does not name, required ones left out, and values of a
    type the schema rules out, before the call (a usage error, as for prompts). A schema without
    ``properties``, or one that allows other properties (``additionalProperties`` true or a schema,
    ``patternProperties``), takes any names."""
    _check_names(tool_name, arguments, schema)
    wrong = type_errors(arguments, schema)
    if wrong:
        raise UsageError(f"tool {tool_name!r}: {'; '.join(wrong)}")


def _check_names(tool_name: str, arguments: dict[str, object], schema: dict[str, object]) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    listed = schema.get("required")
    required = [name for name in listed if isinstance(name, str)] if isinstance(listed, list) else []
    missing = [name for name in required if name not in arguments]
    if missing:
        raise UsageError(f"tool {tool_name!r} needs argument(s) {', '.join(map(repr, missing))} "
                         f"({_argument_list(schema)})")
    extra = schema.get("additionalProperties")
    if extra is True or isinstance(extra, dict):
        return
    given = schema.get("patternProperties")
    patterns = [p for p in given if isinstance(p, str)] if isinstance(given, dict) else []

    def allowed(name: str) -> bool:
        if name in properties:
            return True
        for pattern in patterns:
            try:
                if re.search(pattern, name):
                    return True
            except re.error:
                return True  # a pattern we cannot read: leave the judgement to the server
        return False

    unknown = [name for name in arguments if not allowed(name)]
    if unknown:
        raise UsageError(f"tool {tool_name!r} has no argument(s) {', '.join(map(repr, unknown))} "
                         f"({_argument_list(schema)})")


_RESOURCE_NOT_FOUND = (-32002, -32602)
"""JSON-RPC codes servers answer an unknown resource with (the spec's -32002; the SDK's MCPServer -32602)."""


def _known_resources(group: ClientGroup) -> list[str]:
    return [str(r.uri) for r in group.resources()] + [t.uri_template for t in group.resource_templates()]


def read(args: argparse.Namespace) -> int:
    """``mcp-litellm read URI``: print (or save) a resource's content."""
    with connect(args) as group:
        client, listed = resource_owner(args.uri, group.resources(), group.resource_templates(), group,
                                        choose="choose one with --server")
        try:
            content = client.read_resource(args.uri)
        except ServerError as exc:  # not found is exit code 2 whether one server runs or several
            if listed or exc.code not in _RESOURCE_NOT_FOUND:
                raise
            raise NotFoundError("resource", args.uri, _known_resources(group)) from exc
        data = _resource_bytes(content)
        if args.output:
            try:
                with open(args.output, "wb") as stream:
                    stream.write(data if isinstance(data, bytes) else data.encode("utf-8"))
            except OSError as exc:
                raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        elif isinstance(data, bytes):
            if sys.stdout.isatty():
                raise UsageError(f"{args.uri} is binary ({len(data)} bytes); use --output FILE or redirect stdout")
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            shown = clean_result(data) if sys.stdout.isatty() else data  # on a terminal, without control characters
            print(shown, end="" if shown.endswith("\n") else "\n")
        return exit_status(group)


def _resource_bytes(content: object) -> str | bytes:
    """Text or bytes from whatever a read returned (str, bytes, SDK contents, or a list of them)."""
    if isinstance(content, str | bytes):
        return content
    if isinstance(content, list | tuple):
        pieces = [_resource_bytes(item) for item in content]
        if all(isinstance(p, str) for p in pieces):
            return "\n".join(str(p) for p in pieces)
        return b"".join(p if isinstance(p, bytes) else p.encode() for p in pieces)
    for attr in ("contents", "content"):
        inner = getattr(content, attr, None)
        if inner is not None and not callable(inner):
            return _resource_bytes(inner)
    text = getattr(content, "text", None)
    if text is not None:
        return str(text)
    blob = getattr(content, "blob", None)
    if blob is not None:
        return base64.b64decode(blob)
    return str(content)


def prompt(args: argparse.Namespace) -> int:
    """``mcp-litellm prompt NAME key=value ...``: print the prompt's messages."""
    arguments = _pairs(args.arguments)
    with connect(args) as group:
        matches = [p for p in group.prompts() if p.name == args.name]
        if not matches:
            raise NotFoundError("prompt", args.name, [p.name for p in group.prompts()])
        if len(matches) > 1:
            servers = ", ".join(repr(p.client.name) for p in matches)
            raise UsageError(f"prompt {args.name!r} is offered by several servers ({servers}); "
                             "choose one with --server")
        messages = matches[0].messages(arguments)
        if args.format in ("json", "litellm"):
            dump_json(messages)
            return exit_status(group)
        for message in messages:
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(part.get("text") or f"[{part.get('type', 'part')}]" for part in content)
            print(f"[{message.get('role', '?')}]\n{clean_result(str(content))}\n")
        return exit_status(group)

