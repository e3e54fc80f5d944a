"""From one target's options (as the command line or a targets file gives them) to a Target.

Everything that can be checked before measuring is checked here: the options fit
the kind of target, variables parse, every template renders, gRPC request data
fits the method's message type, TLS files load, `--server-pid` listens on the
target's port. Each failure is a one-line UsageError.

A target's distinct requests are slots: slot k takes the k-th line of `--data-file`
(or the one --data/--body/--args) and the k-th binding of the variables, each
cycling, as many as the longer of the two (at most --vars-limit).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

from rpcarena.errors import UsageError
from rpcarena.targets import checks, protos, template, tls
from rpcarena.targets import streams as native_stream
from rpcarena.targets.target import Target, reachable, server_pid

KINDS = ("grpc", "http", "rpyc")
# options that only some kinds of target take
ONLY = {"method": ("grpc",), "proto": ("grpc",), "import_path": ("grpc",), "data": ("grpc",),
        "metadata": ("grpc",), "stream_messages": ("grpc",), "http_method": ("http",), "header": ("http",),
        "body": ("http",), "http2": ("http",), "rpyc_method": ("rpyc",), "args": ("rpyc",),
        **{key: ("grpc", "http") for key in tls.OPTIONS}}
# each kind's request data option, which --data-file replaces
DATA = {"grpc": "data", "http": "body", "rpyc": "args"}
Slot = tuple[Any, Any]  # (the request data template of this slot or None, the binding of its variables)


def option(key: str) -> str:
    return "--" + key.replace("_", "-")


def build(group: dict[str, Any], name: str, vars_limit: int, timeout_s: float) -> Target:
    """A Target from one group of options ({"kind", "address", "var": [...], ...})."""
    kind = group.get("kind")
    if kind not in KINDS:
        given = " ".join(option(k) for k in group) or "nothing"
        raise UsageError(f"target options without an address ({given}): start each target with "
                         "--grpc HOST:PORT, --http URL or --rpyc HOST:PORT")
    for key, only in ONLY.items():
        if key in group and kind not in only:
            kinds = " and ".join(f"--{k}" for k in only)
            raise UsageError(f"{option(key)} is for {kinds} targets, not --{kind} ({name}): move it to its target")
    slots = _slots(group, kind, vars_limit)
    wanted = [checks.parse(text) for text in group.get("expect_json", [])]
    rendered = tuple(checks.render(wanted, b) for _, b in slots)
    return BUILDERS[kind](group, name, slots, rendered, timeout_s)


def _slots(group: dict[str, Any], kind: str, vars_limit: int) -> list[Slot]:
    binds = template.bindings([template.parse_var(v) for v in group.get("var", [])], vars_limit)
    data = group.get(DATA[kind])
    if group.get("data_file") is None:
        return [(data, b) for b in binds]
    if data is not None:
        raise UsageError(f"--data-file and --{DATA[kind]} both give the request: keep one")
    lines = template.data_file(group["data_file"])
    count = min(vars_limit, max(len(lines), len(binds)))
    return [(lines[k % len(lines)], binds[k % len(binds)]) for k in range(count)]


def host_port(text: str, opt: str) -> str:
    """HOST:PORT (a grpc://, grpcs:// or rpyc:// in front is dropped: the positional form's scheme)."""
    text = text.split("://", 1)[1] if "://" in text else text
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise UsageError(f"bad {opt} {text!r}: write HOST:PORT, e.g. 127.0.0.1:50051")
    return text


def _grpc(group: dict[str, Any], name: str, slots: list[Slot], rendered: tuple[Any, ...], timeout_s: float) -> Target:
    address = host_port(group["address"], "--grpc")
    if not group.get("method"):
        raise UsageError(f"the --grpc target {name} needs --method package.Service/Method")
    ref = protos.parse_method(group["method"])
    status = _grpc_status(group.get("expect_status"))
    secure = tls.settings(group, name, group["address"].startswith("grpcs://"))
    if secure and secure["insecure"]:
        secure = tls.presented(secure, address, timeout_s)
    described = {"kind": "grpc", "expect_status": status, "tls": secure, "metadata": _metadata(group)}
    target = Target(name, "grpc", address, f"{ref.service}/{ref.name}", f"{ref.service}/{ref.name}",
                    described, (), rendered, server_pid(group.get("server_pid"), address))
    if group.get("proto"):
        schema = protos.from_proto(Path(group["proto"]), [Path(p) for p in group.get("import_path", [])])
    else:
        reachable(target)
        schema = protos.from_reflection(address, ref.service, timeout_s, secure)
    method = protos.find_method(protos.pool_of(schema), ref)
    request_type, _ = protos.message_classes(method)
    requests = tuple(_proto_data(template.render_json(data or "{}", b, _where(group, "--data")), request_type, name,
                                 method.client_streaming) for data, b in slots)
    return _with(target, requests, dict(target.description, descriptor_set_b64=protos.encode(schema),
                                        **native_stream.description(method, group.get("stream_messages"))))


def _where(group: dict[str, Any], option: str) -> str:
    return f"--data-file {group['data_file']}" if group.get("data_file") else option


def _metadata(group: dict[str, Any]) -> list[list[str]]:
    """`--metadata 'key: value'` as gRPC wants it: lowercase keys, not templated (sent with every call)."""
    out = []
    for text in group.get("metadata", []):
        key, value = _header(text, "--metadata")
        if template.PLACEHOLDER.search(text) or not key.isascii():
            raise UsageError(f"bad --metadata {text!r}: give a fixed 'key: value' (ASCII key, no {{{{var}}}})")
        out.append([key.lower(), value])
    return out


def _with(target: Target, requests: tuple[Any, ...], description: dict[str, Any]) -> Target:
    return Target(target.id, target.protocol, target.address, target.method, target.label, description,
                  requests, target.checks, target.server_pid)


def _grpc_status(text: str | None) -> str | None:
    if text is None:
        return None
    import grpc

    names = [code.name for code in grpc.StatusCode]
    if text.upper() not in names:
        raise UsageError(f"bad --expect-status {text!r} for a gRPC target: give a status name such as OK or NOT_FOUND")
    return text.upper()


def _proto_data(data: object, request_type: Any, name: str, client_streams: bool) -> object:
    """A request, or for a method that streams from the client a list of its messages."""
    if client_streams and isinstance(data, list):
        return [_proto_json(item, request_type, name) for item in data]
    return _proto_json(data, request_type, name)


def _proto_json(data: object, request_type: Any, name: str) -> dict[str, Any]:
    """The rendered --data, checked against the request message type."""
    from google.protobuf import json_format

    if not isinstance(data, dict):
        raise UsageError(f"--data of {name} must be a JSON object (the request message)")
    try:
        json_format.ParseDict(data, request_type())
    except json_format.ParseError as error:
        message = str(error).splitlines()[0]
        raise UsageError(f"--data of {name} does not fit {request_type.DESCRIPTOR.full_name} ({message}): "
                         "fix --data") from None
    return data


def _http(group: dict[str, Any], name: str, slots: list[Slot], rendered: tuple[Any, ...], timeout_s: float) -> Target:
    url_template = group["address"]
    _split(url_template)
    body = slots[0][0]
    method = (group.get("http_method") or ("POST" if body is not None else "GET")).upper()
    headers = [_header(text, "--header") for text in group.get("header", [])]
    typed = any(k.lower() == "content-type" for k, _ in headers)
    if body is not None and body.lstrip()[:1] in ("{", "[") and not typed:
        headers.append(("Content-Type", "application/json"))
    where = _where(group, "--body")
    requests = tuple(_http_request(method, url_template, headers, data, b, where) for data, b in slots)
    address = _url_address(requests[0]["url"])
    label = f"{method} {_split(url_template).path or '/'}"
    status = _http_status(group.get("expect_status"))
    https = _split(requests[0]["url"]).scheme == "https"
    if not https and any(group.get(key) for key in tls.OPTIONS):
        raise UsageError(f"the TLS options of {name} need an https:// URL: write --http https://...")
    if group.get("http2") and importlib.util.find_spec("h2") is None:
        raise UsageError("--http2 needs the Python package h2: pip install 'httpx[http2]'")
    described = {"kind": "http", "expect_status": status, "tls": tls.settings(group, name, https),
                 "http2": bool(group.get("http2"))}
    return Target(name, "http", address, method, label, described,
                  requests, rendered, server_pid(group.get("server_pid"), address))


def _header(text: str, opt: str) -> tuple[str, str]:
    key, sep, value = text.partition(":")
    if not sep or not key.strip():
        raise UsageError(f"bad {opt} {text!r}: write 'Name: value'")
    return key.strip(), value.strip()


def _http_request(method: str, url: str, headers: list[Any], body: str | None, binding: dict[str, Any],
                  where: str) -> dict[str, Any]:
    json_body = body is not None and body.lstrip()[:1] in ("{", "[")
    rendered = template.render(body, binding, where, escape="json" if json_body else "text") if body else body
    if json_body and where.startswith("--data-file"):
        template.render_json(body or "", binding, where)  # a data file holds JSON: each line must parse
    return {"method": method, "url": template.render(url, binding, "--http", escape="url"),
            "headers": {k: template.render(v, binding, f"--header {k}") for k, v in headers},
            "body": rendered}


def _split(url: str) -> SplitResult:
    """The URL's parts; a broken one (an IPv6 address left open: 'http://[::1/') is a one-line error."""
    try:
        return urlsplit(url)
    except ValueError as error:
        raise UsageError(f"bad --http {url!r} ({error}): write a URL such as http://127.0.0.1:8000/path or "
                         "http://[::1]:8000/path") from None


def _url_address(url: str) -> str:
    parts = _split(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"bad --http {url!r}: write a URL such as http://127.0.0.1:8000/path/{{{{id}}}}")
    try:
        port = parts.port
    except ValueError:
        raise UsageError(f"bad --http {url!r}: its port is not a number below 65536") from None
    if port == 0:  # not the scheme's default: no server listens on port 0
        raise UsageError(f"bad --http {url!r}: port 0 is no server's port; give the port the server listens on")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port or (443 if parts.scheme == 'https' else 80)}"


def _http_status(text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isdigit() or not 100 <= int(text) < 600:
        raise UsageError(f"bad --expect-status {text!r} for an HTTP target: give a status code such as 200")
    return int(text)


def _rpyc(group: dict[str, Any], name: str, slots: list[Slot], rendered: tuple[Any, ...], timeout_s: float) -> Target:
    address = host_port(group["address"], "--rpyc")
    method = group.get("rpyc_method")
    if not method:
        raise UsageError(f"the --rpyc target {name} needs --rpyc-method NAME (an exposed method)")
    if group.get("expect_status") is not None:
        raise UsageError("--expect-status is for --grpc and --http targets; check an RPyC reply with --expect-json")
    where = _where(group, "--args")
    requests = tuple({"args": _args(template.render_json(data or "[]", b, where))} for data, b in slots)
    return Target(name, "rpyc", address, method, method, {"kind": "rpyc"}, requests, rendered,
                  server_pid(group.get("server_pid"), address))


def _args(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise UsageError("--args must be a JSON list of the method's arguments, e.g. '[\"x\", 3]'")
    return value


BUILDERS: dict[str, Callable[..., Target]] = {"grpc": _grpc, "http": _http, "rpyc": _rpyc}
