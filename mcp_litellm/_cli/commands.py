"""The commands of ``mcp-litellm``: each takes the parsed arguments and returns an exit code."""

from __future__ import annotations

import argparse
import base64
import json
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from mcp_litellm._cli.oauth_status import auth_status, needs_login
from mcp_litellm._cli.render import ProgressBar, describe_block, dump_json, first_line, signature
from mcp_litellm._core.errors import ConfigError, NotFoundError, ServerError, TransportError
from mcp_litellm._servers.config_file import ServerConfig, load_config
from mcp_litellm._servers.group import ClientGroup

PROG = "mcp-litellm"
DEMO_SERVER = "demo"
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line mistake found after parsing (exit code 2)."""


def demo_config() -> dict[str, Any]:
    """The config used without ``--config``: the demo server shipped in the package, over stdio."""
    return {"mcpServers": {DEMO_SERVER: {"command": sys.executable, "args": ["-m", "mcp_litellm.demo_server"]}}}


def configs_for(args: argparse.Namespace) -> dict[str, ServerConfig]:
    """The servers of ``--config`` (or the demo server)."""
    return load_config(args.config if args.config else demo_config())


_configs = configs_for


@contextmanager
def connect(args: argparse.Namespace, *, prepare: Callable[[ClientGroup], Any] | None = None,
            **client_options: Any) -> Iterator[ClientGroup]:
    """Start the selected servers (failures are reported and skipped); stop them all afterwards.

    ``prepare(group)`` runs after the clients are made and before they start (to register handlers,
    whose capabilities are advertised at start).
    """
    configs = _configs(args)
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
            print(f"{PROG}: warning: {error}", file=sys.stderr)
        yield group


def _status(group: ClientGroup) -> int:
    return EXIT_FAILED if group.failed else EXIT_OK


# -- listing ------------------------------------------------------------------------------------------


def servers(args: argparse.Namespace) -> int:
    """``mcp-litellm servers``: every configured server, whether it started, and what it offers."""
    configs = _configs(args)
    for name in args.server or ():
        if name not in configs:
            raise NotFoundError("server", name, configs)
    selected = {name: c for name, c in configs.items() if not args.server or name in args.server}
    auth = {name: auth_status(c) for name, c in selected.items()}
    # A server waiting for a person's authorization is not started here: that would open a browser.
    startable = {name: c for name, c in selected.items() if not needs_login(c)}
    options = {"request_timeout": args.timeout} if args.timeout is not None else {}
    rows: list[dict[str, Any]] = []
    with ClientGroup(startable, strict=False, **options) as group:
        for name, server_config in selected.items():
            row: dict[str, Any] = {"name": name, "transport": server_config.transport_type}
            if auth[name] is not None:
                row["auth"] = auth[name]
            client = group.get(name)
            if server_config.disabled:
                row["status"] = "disabled"
            elif name not in startable:
                row.update(status="login", error=f"not authorized: run '{PROG} login {name}'")
            elif client is None:
                row.update(status="failed", error=str(group.failed.get(name, "not started")))
            else:
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
                line += (f"  {row['server'] or '?'} {row['version'] or ''}, protocol {row['protocol']}, "
                         f"{row['tools']} tools")
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
        return _status(group)


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
            return _status(group)
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
        return _status(group)


def prompts(args: argparse.Namespace) -> int:
    """``mcp-litellm prompts``: prompts and their arguments."""
    with connect(args) as group:
        listed = group.prompts()
        if args.format == "json":
            dump_json([{"server": p.client.name, "name": p.name, "title": p.title, "description": p.description,
                        "arguments": [{"name": a.name, "description": a.description, "required": bool(a.required)}
                                      for a in p.arguments or []]} for p in listed])
            return _status(group)
        for client in group:
            mine = [p for p in listed if p.client is client]
            print(f"{client.name}: {len(mine)} prompt{'s' if len(mine) != 1 else ''}")
            for item in mine:
                arguments = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in item.arguments or [])
                print(f"  {item.name}({arguments})")
                if item.description:
                    print(f"      {first_line(item.description)}")
        return _status(group)


# -- single operations --------------------------------------------------------------------------------


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _json_given(given: Sequence[str]) -> bool:
    """Whether the tool arguments are one JSON object (or ``-``: one on stdin) rather than key=value pairs."""
    return len(given) == 1 and (given[0].lstrip().startswith("{") or given[0] == "-")


def parse_json_arguments(given: Sequence[str]) -> dict[str, Any]:
    """The JSON object given as the tool arguments (``-`` reads it from stdin)."""
    text = sys.stdin.read() if given[0] == "-" else given[0]
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"tool arguments are not valid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(parsed, dict):
        raise UsageError(f"tool arguments must be a JSON object, got {type(parsed).__name__}")
    return parsed


def typed_arguments(pairs: dict[str, str], schema: dict[str, Any]) -> dict[str, Any]:
    """``key=value`` texts typed by the tool's input schema: a string property keeps the text as given
    (``q=1`` stays ``"1"``); other values are parsed as JSON when they are JSON (``a=1`` becomes 1)."""
    properties = schema.get("properties")
    typed: dict[str, Any] = {}
    for key, value in pairs.items():
        prop = properties.get(key) if isinstance(properties, dict) else None
        kinds = prop.get("type") if isinstance(prop, dict) else None
        kinds = {kinds} if isinstance(kinds, str) else set(kinds or ())
        typed[key] = value if "string" in kinds and kinds <= {"string", "null"} else _value(value)
    return typed


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
            text = "\n".join(lines) if lines else result.text
            if result.is_error:
                print(f"{PROG}: error: tool {tool.name!r} reported an error: {' '.join(text.split())}",
                      file=sys.stderr)
            elif text:
                print(text)
        return EXIT_FAILED if result.is_error else EXIT_OK


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]*\})", template)
    pattern = "".join(
        (".+" if part[1:2] in "+#" else "[^/?#]+") if part.startswith("{") else re.escape(part) for part in parts
    )
    return re.compile(pattern)


_RESOURCE_NOT_FOUND = (-32002, -32602)
"""JSON-RPC codes servers answer an unknown resource with (the spec's -32002; the SDK's MCPServer -32602)."""


def _known_resources(group: ClientGroup) -> list[str]:
    return [str(r.uri) for r in group.resources()] + [t.uri_template for t in group.resource_templates()]


def _find_resource_client(group: ClientGroup, uri: str) -> tuple[Any, bool]:
    """The client to read ``uri`` from, and whether a server lists it (as a resource or a template match).

    A URI no server lists is still tried when only one server runs (servers need not list everything);
    a URI listed by several servers is a usage error that names them.
    """
    offering = [r.client for r in group.resources() if str(r.uri) == uri]
    if not offering:
        offering = [t.client for t in group.resource_templates() if _template_regex(t.uri_template).fullmatch(uri)]
    offering = list({id(client): client for client in offering}.values())
    if len(offering) > 1:
        servers = ", ".join(repr(client.name) for client in offering)
        raise UsageError(f"resource {uri!r} is offered by several servers ({servers}); choose one with --server")
    if offering:
        return offering[0], True
    clients = list(group)
    if len(clients) == 1:
        return clients[0], False
    raise NotFoundError("resource", uri, _known_resources(group))


def read(args: argparse.Namespace) -> int:
    """``mcp-litellm read URI``: print (or save) a resource's content."""
    with connect(args) as group:
        client, listed = _find_resource_client(group, args.uri)
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
            print(data, end="" if data.endswith("\n") else "\n")
        return EXIT_OK


def _resource_bytes(content: Any) -> str | bytes:
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
    if getattr(content, "text", None) is not None:
        return str(content.text)
    if getattr(content, "blob", None) is not None:
        return base64.b64decode(content.blob)
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
            return EXIT_OK
        for message in messages:
            content = message.get("content")
            if isinstance(content, list):
                content = "\n".join(part.get("text") or f"[{part.get('type', 'part')}]" for part in content)
            print(f"[{message.get('role', '?')}]\n{content}\n")
        return EXIT_OK

