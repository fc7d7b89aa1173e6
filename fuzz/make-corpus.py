#!/usr/bin/env python3
"""Write the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

Each seed is written here by hand, so a reviewer reads every one in one place; run
`python3 fuzz/make-corpus.py` after changing this file and commit the result. The input
formats are described in crates/frontdesk/src/fuzzing.rs (and fuzzing/server.rs for the
server scripts: one message per line, `@S<n>@` for the seeded request states, `@...`
directives). The stable test suite replays every file (tests/it/fuzz_props.rs).
"""

import json
import os
import shutil

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
ALL_CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}


def meta(caps=None, **extra):
    m = dict(MODERN_META)
    if caps is not None:
        m["io.modelcontextprotocol/clientCapabilities"] = caps
    for k, v in extra.items():
        m["io.modelcontextprotocol/" + k] = v
    return m


def j(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def req(id_, method, params=None):
    m = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        m["params"] = params
    return j(m)


def note(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return j(m)


def reply(id_, result):
    return j({"jsonrpc": "2.0", "id": id_, "result": result})


def write(target, name, data):
    folder = os.path.join(ROOT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- classify
def classify():
    seeds = {
        "request": req(1, "tools/call", {"name": "book", "arguments": {}}),
        "request-string-id": req("a-1", "ping"),
        "request-big-id": req(18446744073709551615, "ping"),
        "request-negative-id": req(-9223372036854775808, "ping"),
        "notification": note("notifications/initialized"),
        "cancelled": note("notifications/cancelled", {"requestId": 3, "reason": "x"}),
        "response": reply("fd-1", {"action": "accept", "content": {"a": 1}}),
        "error": j({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "m", "data": [1]}}),
        "error-null-id": j({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "p"}}),
        "error-no-id": j({"jsonrpc": "2.0", "error": {"code": 1, "message": ""}}),
        "batch": "[" + req(1, "ping") + "]",
        "string": '"hello"',
        "number": "12",
        "null": "null",
        "version-1": j({"jsonrpc": "1.0", "id": 3, "method": "ping"}),
        "no-version": j({"id": 3, "method": "ping"}),
        "method-number": j({"jsonrpc": "2.0", "id": 4, "method": 7}),
        "params-array": j({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": [1]}),
        "params-null": j({"jsonrpc": "2.0", "id": 5, "method": "ping", "params": None}),
        "id-null-request": j({"jsonrpc": "2.0", "id": None, "method": "ping"}),
        "id-float": '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        "id-object": j({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
        "no-kind": j({"jsonrpc": "2.0", "id": 8}),
        "method-and-result": j({"jsonrpc": "2.0", "id": 1, "method": "x", "result": {}}),
        "result-and-error": j({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": ""}}),
        "result-not-object": j({"jsonrpc": "2.0", "id": 1, "result": 5}),
        "result-no-id": j({"jsonrpc": "2.0", "result": {}}),
        "error-malformed": j({"jsonrpc": "2.0", "id": 1, "error": {"code": "x"}}),
        "extra-members": j({"jsonrpc": "2.0", "id": 1, "method": "m", "extra": True, "x": [None]}),
        "duplicate-keys": '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}',
        "escapes": '{"jsonrpc":"2.0","id":"\\u0000\\ud83d\\ude00","method":"\\u0070ing"}',
        "lone-surrogate": '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}',
        "truncated": '{"jsonrpc":"2.0","id":1,"method":',
        "deep": "[" * 200 + "]" * 200,
        "deep-params": '{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":' + "[" * 120 + "]" * 120 + "}}",
        "empty": "",
        "whitespace": " \t\r\n ",
    }
    for name, text in seeds.items():
        write("classify", name, text)
    write("classify", "invalid-utf8", b'{"jsonrpc":"2.0","id":"\xff","method":"ping"}')


# ---------------------------------------------------------------- schema
def schema():
    def form(props, required=None, **extra):
        s = {"type": "object", "properties": props}
        if required is not None:
            s["required"] = required
        s.update(extra)
        return s

    seeds = {
        "text": (form({"name": {"type": "string", "minLength": 1, "maxLength": 5}}, ["name"]), {"name": "Ana"}),
        "text-too-long": (form({"name": {"type": "string", "maxLength": 2}}), {"name": "Anabel"}),
        "email": (form({"e": {"type": "string", "format": "email"}}), {"e": "ana@example.com"}),
        "uri": (form({"u": {"type": "string", "format": "uri"}}), {"u": "https://x.example/a?b#c"}),
        "date": (form({"d": {"type": "string", "format": "date"}}), {"d": "2024-02-29"}),
        "date-time": (form({"d": {"type": "string", "format": "date-time"}}), {"d": "2026-01-01T10:00:00Z"}),
        "unknown-format": (form({"d": {"type": "string", "format": "ipv4"}}), {"d": "1.2.3.4"}),
        "pattern": (form({"c": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{1,4}$"}}), {"c": "AB-12"}),
        "pattern-backtracking": (form({"c": {"type": "string", "pattern": "^(a+)+$"}}), {"c": "a" * 40 + "b"}),
        "pattern-lookahead": (form({"c": {"type": "string", "pattern": "^(?=.*\\d)(?!x).{3,}\\1?$"}}), {"c": "ab1"}),
        "pattern-unicode": (form({"c": {"type": "string", "pattern": "^\\p{L}+$"}}), {"c": "日本"}),
        "pattern-invalid": (form({"c": {"type": "string", "pattern": "(["}}), {"c": "x"}),
        "integer": (form({"n": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1}}), {"n": 3.0}),
        "integer-huge": (form({"n": {"type": "integer"}}), {"n": 1e300}),
        "number": (form({"x": {"type": "number", "minimum": -1.5, "maximum": 2.5}}), {"x": -1.5}),
        "number-exclusive": (form({"x": {"type": "number", "exclusiveMinimum": 0}}), {"x": 0}),
        "boolean": (form({"b": {"type": "boolean", "default": False}}), {}),
        "enum": (form({"r": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}}), {"r": "b"}),
        "one-of": (form({"r": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b"}]}}), {"r": "c"}),
        "multi": (form({"t": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "minItems": 1, "maxItems": 2}}), {"t": ["x", "x"]}),
        "multi-any-of": (form({"t": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}}}), {"t": ["x"]}),
        "default-invalid": (form({"n": {"type": "integer", "minimum": 5, "default": 1}}), {}),
        "min-over-max": (form({"n": {"type": "integer", "minimum": 5, "maximum": 1}}), {"n": 3}),
        "nested-object": (form({"o": {"type": "object", "properties": {"a": {"type": "string"}}}}), {"o": {"a": "x"}}),
        "array-of-objects": (form({"a": {"type": "array", "items": {"type": "object"}}}), {"a": [{}]}),
        "required-unknown": (form({"a": {"type": "string"}}, ["a", "b", 3]), {}),
        "undeclared-keys": (form({"a": {"type": "string"}}), {"a": "x", "zz": [1, 2], "": None}),
        "not-object-type": ({"type": "array", "properties": {}}, {}),
        "no-properties": ({"type": "object"}, {}),
        "properties-array": ({"type": "object", "properties": []}, {}),
        "annotations": (form({"a": {"type": "string", "title": "T", "description": "D", "x-extra": {"k": [1]}}},
                             **{"$schema": "https://json-schema.org/draft/2020-12/schema", "additionalProperties": False}), {"a": ""}),
        "wrong-types": (form({"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}), {"a": 1, "b": "2", "c": "true"}),
    }
    for name, (s, content) in seeds.items():
        write("schema", name, j(s) + "\n" + j(content))
    write("schema", "schema-only", j(form({"a": {"type": "string"}})))
    write("schema", "content-not-object", j(form({"a": {"type": "string"}})) + " [1,2]")


# ---------------------------------------------------------------- url_review
def url_review():
    urls = [
        (0, "https://example.com/signin?token=abc"),
        (0, "http://127.0.0.1:8080/callback"),
        (0, "http://localhost/x"),
        (0, "http://example.com/"),
        (0, "https://user:pass@example.com/"),
        (0, "https://xn--80ak6aa92e.com/"),
        (0, "https://аррӏе.com/"),
        (0, "https://pаypal.com/"),
        (0, "https://example.com\u202e/moc.evil"),
        (0, "https://exa\u200bmple.com/"),
        (0, "javascript:alert(1)"),
        (0, "data:text/html,<script>"),
        (0, "file:///etc/passwd"),
        (0, "https://[::1]:8443/"),
        (0, "http://[::1]/"),
        (0, "https://0x7f.1/"),
        (0, "https://2130706433/"),
        (0, "https://example.com./a/../b/%2e%2e/"),
        (0, "https://EXAMPLE.com:443/%41"),
        (0, "HTTPS://例え.テスト/パス"),
        (0, "https://a.b.c.d.example.co.uk/"),
        (0, "https://example.com/" + "a" * 3000),
        (0, "  https://example.com/  "),
        (0, "https://example.com/\n\t"),
        (0, "//example.com/"),
        (0, "example.com"),
        (0, ""),
        (1, "https://example.com/"),
        (1, "http://127.0.0.1/"),
        (2, "myapp://open/thing"),
        (2, "https://sub.example.com/a"),
        (2, "https://example.com/" + "b" * 80),
    ]
    for i, (policy, url) in enumerate(urls):
        write("url_review", f"url-{i:02}", bytes([policy]) + url.encode("utf-8"))


# ---------------------------------------------------------------- headers
def headers():
    def call(name="book", version="2026-07-28", id_=1, method="tools/call"):
        params = {"name": name, "_meta": {"io.modelcontextprotocol/protocolVersion": version}}
        m = {"jsonrpc": "2.0", "method": method, "params": params}
        if id_ is not None:
            m["id"] = id_
        return j(m)

    pv = "mcp-protocol-version: 2026-07-28"
    seeds = {
        "good": [pv, "mcp-method: tools/call", "mcp-name: book"], 
        "good-base64": [pv, "mcp-method: tools/call", "mcp-name: =?base64?csOpc2VydmF0aW9u?="],
        "wrong-version": ["mcp-protocol-version: 2025-11-25", "mcp-method: tools/call", "mcp-name: book"],
        "missing-version": ["mcp-method: tools/call", "mcp-name: book"],
        "missing-method": [pv, "mcp-name: book"],
        "wrong-method": [pv, "mcp-method: tools/list", "mcp-name: book"],
        "missing-name": [pv, "mcp-method: tools/call"],
        "wrong-name": [pv, "mcp-method: tools/call", "mcp-name: Book"],
        "repeated-name": [pv, "mcp-method: tools/call", "mcp-name: book", "mcp-name: book"],
        "bad-base64": [pv, "mcp-method: tools/call", "mcp-name: =?base64?***?="],
        "base64-not-utf8": [pv, "mcp-method: tools/call", "mcp-name: =?base64?/w==?="],
        "padded": ["mcp-protocol-version:   2026-07-28  ", "mcp-method:\ttools/call", "mcp-name: book "],
        "uppercase-names": ["MCP-Protocol-Version: 2026-07-28", "Mcp-Method: tools/call", "MCP-NAME: book"],
        "other-headers": [pv, "mcp-method: tools/call", "mcp-name: book", "accept: */*", "mcp-session-id: x"],
    }
    for name, lines in seeds.items():
        write("headers", name, "\n".join(lines) + "\n\n" + call())
    write("headers", "obs-text", pv.encode() + b"\nmcp-method: tools/call\nmcp-name: b\xe9\n\n" + call().encode())
    write("headers", "notification", pv + "\n\n" + call(id_=None, method="notifications/cancelled"))
    write("headers", "notification-wrong-method", pv + "\nmcp-method: x\n\n" + call(id_=None, method="notifications/x"))
    write("headers", "discover", pv + "\nmcp-method: server/discover\n\n"
          + req(1, "server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    write("headers", "resources-read", pv + "\nmcp-method: resources/read\nmcp-name: file:///a b\n\n"
          + req(1, "resources/read", {"uri": "file:///a b", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    write("headers", "prompts-get-unicode", pv + "\nmcp-method: prompts/get\nmcp-name: =?base64?5pel5pys?=\n\n"
          + req(1, "prompts/get", {"name": "日本", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}))
    write("headers", "name-not-string", pv + "\nmcp-method: tools/call\nmcp-name: 5\n\n"
          + req(1, "tools/call", {"name": 5}))
    write("headers", "version-not-string", pv + "\nmcp-method: tools/call\nmcp-name: book\n\n"
          + req(1, "tools/call", {"name": "book", "_meta": {"io.modelcontextprotocol/protocolVersion": 2026}}))
    write("headers", "no-method-body", pv + "\nmcp-name: x\n\n" + reply(1, {}))
    write("headers", "body-not-json", pv + "\n\n{\"jsonrpc\":")
    write("headers", "no-headers", "\n\n" + call())
    write("headers", "empty-name-sentinel", pv + "\nmcp-method: tools/call\nmcp-name: =?base64??=\n\n" + call(name=""))


# ---------------------------------------------------------------- sse
def sse():
    streams = [
        (1, "data: {\"a\":1}\n\n"),
        (4, "id: 1\r\nretry: 500\r\ndata: \r\n\r\n"),
        (7, ": keepalive\n\nevent: message\ndata: x\ndata: y\n\n"),
        (2, "data: one\rdata: two\r\r"),
        (5, "data:no-space\n\ndata:  two spaces\n\n"),
        (8, "id: \n\n"),
        (3, "id: a\x00b\ndata: x\n\n"),
        (0, "data: " + "x" * 20 + "\n\n"),
        (1, "data: " + "y" * 70 + "\ndata: z\n\n"),
        (2, "data: " + "z" * 5000 + "\n\n"),
        (0, "data\ndata\ndata\ndata\n\n"),
        (0, "data: 1234\ndata\ndata\ndata\n\n"),
        (6, "retry: abc\n\nretry: 99999999999999999999\n\nretry: 10\n\n"),
        (9, "unknown: field\n\n"),
        (10, "data: unterminated"),
        (11, "\n\n\n\r\n\r\r\n"),
        (12, "id: 1\nid: 2\ndata: last id wins\n\n"),
        (13, "data: é日本😀\n\n"),
        (14, "\ufeffdata: bom\n\n"),
        (15, "data: a\r\n\r\ndata: b\n\r\n"),
        (16, "event: end\n\n"),
        (17, "id: " + "i" * 100 + "\ndata: x\n\n"),
        (18, ":\n:\n\n"),
        (19, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\nid: 0-1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"),
    ]
    for i, (pick, text) in enumerate(streams):
        write("sse", f"stream-{i:02}", bytes([pick]) + text.encode("utf-8"))
    write("sse", "invalid-utf8", bytes([1]) + b"data: \xff\xfe\nid: \xc3\n\n")
    # Found by the fuzzer: bytes that are not UTF-8 grow (U+FFFD) past the byte bound.
    write("sse", "id-not-utf8-at-the-bound", bytes([3]) + b"id:" + b"\xff" * 55 + b" a\x00b\ndata: x\n\n")
    # An over-long data line is cut out of its event, not the event dropped.
    write("sse", "data-line-over-the-bound", bytes([0]) + b"data: {}\ndata: 123456789\n\n")


# ---------------------------------------------------------------- stdio_lines
def stdio_lines():
    inputs = [
        (63, 15, b"one\ntwo\nthree\n"),
        (63, 0, b"a\nb\n"),
        (3, 2, b"abc\nabcd\nabcde\nab\n"),
        (3, 15, b"abcdef\r\nxy\r\n"),
        (0, 0, b"\n\n\n"),
        (0, 1, b"x"),
        (10, 3, b"no newline at the end"),
        (10, 4, b"short\n" + b"long" * 10 + b"\nshort again\n"),
        (5, 7, b"\r\n\r\n"),
        (1, 1, b"\x00\xff\n\xfe"),
        (20, 9, b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'),
        (63, 15, b"x" * 65 + b"\n" + b"y" * 66 + b"\n" + b"z" * 67 + b"\n"),
        (7, 8, b"12345678\n123456789\n1234567890\n"),
        (2, 2, b""),
        (30, 5, b"\n".join([b"line"] * 20)),
        (8, 1, b"\r\r\r\n"),
        (15, 14, b"a" * 100),
        (12, 6, b"abc\n" * 10 + b"x" * 30),
    ]
    for i, (a, b, data) in enumerate(inputs):
        write("stdio_lines", f"lines-{i:02}", bytes([a, b]) + data)


# ---------------------------------------------------------------- server scripts
INIT_FORM = req(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                                 "clientInfo": {"name": "fuzz", "version": "1"}})
INIT_ALL = req(0, "initialize", {"protocolVersion": "2025-11-25", "capabilities": ALL_CAPS,
                                "clientInfo": {"name": "fuzz", "version": "1"}})
INITIALIZED = note("notifications/initialized")
DETAILS = {"reason": "damaged", "date": "2026-12-01", "boxes": 2, "email": "ana@example.com",
           "code": "AB-12", "notes": "fragile", "weight": 1.5, "gift": True, "tags": ["heavy"],
           "link": "https://example.com/x", "when": "2026-12-01T10:00:00Z"}


def call_legacy(id_, name, args=None, **params):
    p = {"name": name, "arguments": args or {}}
    p.update(params)
    return req(id_, "tools/call", p)


def call_modern(id_, name, args=None, caps=None, **params):
    p = {"name": name, "arguments": args or {}, "_meta": meta(caps)}
    p.update(params)
    return req(id_, "tools/call", p)


def handle_legacy():
    scripts = {
        "book-accept-confirm": [INIT_FORM, INITIALIZED, call_legacy(1, "book", {"order": "A1"}),
                                reply("fd-1", {"action": "accept", "content": DETAILS}),
                                reply("fd-2", {"action": "accept", "content": {"ok": True}})],
        "book-decline": [INIT_FORM, INITIALIZED, call_legacy(1, "book"), reply("fd-1", {"action": "decline"})],
        "book-cancel": [INIT_FORM, INITIALIZED, call_legacy(1, "book"), reply("fd-1", {"action": "cancel"})],
        "book-invalid-then-reask": [INIT_FORM, INITIALIZED, call_legacy(1, "book"),
                                    reply("fd-1", {"action": "accept", "content": {"reason": "stolen", "boxes": 9}}),
                                    reply("fd-2", {"action": "accept", "content": {"reason": "stolen"}})],
        "book-malformed-answer": [INIT_FORM, INITIALIZED, call_legacy(1, "book"),
                                  j({"jsonrpc": "2.0", "id": "fd-1", "result": 5})],
        "book-error-answer": [INIT_FORM, INITIALIZED, call_legacy(1, "book"),
                              j({"jsonrpc": "2.0", "id": "fd-1", "error": {"code": -32601, "message": "no"}})],
        "book-action-unknown": [INIT_FORM, INITIALIZED, call_legacy(1, "book"), reply("fd-1", {"action": "maybe"})],
        "book-timeout": [INIT_FORM, INITIALIZED, call_legacy(1, "book",
                                                           _meta={"progressToken": "p1"})],
        "book-before-initialized": [INIT_FORM, call_legacy(1, "book"), INITIALIZED,
                                    reply("fd-1", {"action": "decline"})],
        "book-cancelled": [INIT_FORM, INITIALIZED, call_legacy(7, "book"),
                           note("notifications/cancelled", {"requestId": 7, "reason": "user"}),
                           reply("fd-1", {"action": "decline"})],
        "two-calls": [INIT_FORM, INITIALIZED, call_legacy(1, "book"), call_legacy(2, "reserve", {"n": 2}),
                      reply("fd-2", {"action": "accept", "content": {"name": "Ana"}}),
                      reply("fd-1", {"action": "decline"})],
        "signin-url": [INIT_ALL, INITIALIZED, call_legacy(1, "signin"), reply("fd-1", {"action": "accept"}),
                       "@complete"],
        "signin-form-only": [INIT_FORM, INITIALIZED, call_legacy(1, "signin")],
        "gate-32042": [INIT_ALL, INITIALIZED, call_legacy(1, "gate"), "@wait", "@complete", call_legacy(2, "gate")],
        "gate-form-only": [INIT_FORM, INITIALIZED, call_legacy(1, "gate")],
        "multi": [INIT_ALL, INITIALIZED, call_legacy(1, "multi"),
                  reply("fd-1", {"action": "accept", "content": {"name": "Ana"}}),
                  reply("fd-2", {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"}),
                  reply("fd-3", {"roots": [{"uri": "file:///tmp", "name": "tmp"}]})],
        "multi-no-caps": [INIT_FORM, INITIALIZED, call_legacy(1, "multi")],
        "prompt": [INIT_FORM, INITIALIZED, req(1, "prompts/get", {"name": "greet", "arguments": {"tone": "warm"}}),
                   reply("fd-1", {"action": "accept", "content": {"name": "Bo"}})],
        # A prompt that cannot ask answers -32603 with the reason (no isError result for prompts).
        "prompt-no-capability": [req(0, "initialize", {"protocolVersion": "2025-11-25"}), INITIALIZED,
                                 req(1, "prompts/get", {"name": "greet"})],
        "prompt-timeout": [INIT_FORM, INITIALIZED, req(1, "prompts/get", {"name": "greet"})],
        "lists-and-level": [INIT_FORM, INITIALIZED, req(1, "tools/list"), req(2, "prompts/list"),
                            req(3, "logging/setLevel", {"level": "debug"}), req(4, "logging/setLevel", {"level": "loud"}),
                            call_legacy(5, "echo", {"x": 1})],
        "before-initialize": [req(1, "tools/list"), call_legacy(2, "echo"), INIT_FORM],
        "initialize-twice": [INIT_FORM, INIT_ALL, req(1, "initialize", {"protocolVersion": "1999-01-01"})],
        "initialize-bad": [req(1, "initialize", {}), req(2, "initialize", []), req(3, "initialize")],
        "unknown-things": [INIT_FORM, INITIALIZED, req(1, "nothing/here"), call_legacy(2, "nope"),
                           call_legacy(3, "echo", [1]), req(4, "tools/call", {"arguments": {}}),
                           note("notifications/whatever"), reply("fd-77", {})],
        "malformed-lines": [INIT_FORM, '{"jsonrpc": "2.0", "id": 1, "method": ', "[]", '"x"',
                            j({"jsonrpc": "2.0", "id": None, "method": "ping"}),
                            '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', j({"jsonrpc": "2.0", "id": 8}),
                            "x" * 3100],
        "modern-on-session": [INIT_FORM, INITIALIZED, call_modern(1, "book", {"order": "A1"}),
                              call_modern(2, "book", {"order": "A1"}, requestState="@S0@",
                                          inputResponses={"details": {"action": "accept", "content": DETAILS}})],
        "modern-forced-legacy": ["@rev 2025", call_modern(1, "echo"), "@rev 2026", req(2, "ping"), "@rev auto"],
        "principal": ["@principal alice", INIT_FORM, INITIALIZED, call_legacy(1, "book"),
                      reply("fd-1", {"action": "decline"}), "@anonymous"],
        "crlf": [INIT_FORM + "\r", INITIALIZED + "\r", req(1, "ping") + "\r"],
        "progress-and-logs": [INIT_FORM, INITIALIZED, req(1, "logging/setLevel", {"level": "debug"}),
                              call_legacy(2, "book", _meta={"progressToken": 5}), "@wait"],
    }
    for name, lines in scripts.items():
        write("handle_legacy", name, "\n".join(lines) + "\n")


def handle_modern():
    details = {"details": {"action": "accept", "content": DETAILS}}
    scripts = {
        "discover-and-lists": [req(1, "server/discover", {"_meta": meta()}), req(2, "tools/list", {"_meta": meta()}),
                               req(3, "prompts/list", {"_meta": meta()})],
        "meta-errors": [req(1, "server/discover", {}), req(2, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
                        req(3, "tools/list", {"_meta": meta(**{"protocolVersion": "v999"})}),
                        req(4, "ping", {"_meta": meta()}), req(5, "initialize", {"_meta": meta()})],
        "book-first-round": [call_modern(1, "book", {"order": "A1"})],
        "book-retry-s0": [call_modern(1, "book", {"order": "A1"}, requestState="@S0@", inputResponses=details)],
        "book-retry-s1-confirm": [call_modern(1, "book", {"order": "A1"}, requestState="@S1@",
                                              inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}})],
        "book-replay": [call_modern(1, "book", {"order": "A1"}, requestState="@S0@", inputResponses=details),
                        call_modern(2, "book", {"order": "A1"}, requestState="@S0@", inputResponses=details)],
        "book-flipped-state": [call_modern(1, "book", {"order": "A1"}, requestState="@S0!17@", inputResponses=details)],
        "book-wrong-args": [call_modern(1, "book", {"order": "B2"}, requestState="@S0@", inputResponses=details)],
        "book-wrong-principal": ["@principal mallory",
                                 call_modern(1, "book", {"order": "A1"}, requestState="@S0@", inputResponses=details)],
        "book-other-state": [call_modern(1, "book", {"order": "A1"}, requestState="@S3@", inputResponses=details)],
        "book-state-not-string": [call_modern(1, "book", {"order": "A1"}, requestState=5)],
        "book-responses-not-object": [call_modern(1, "book", {"order": "A1"}, requestState="@S0@", inputResponses=[1])],
        "book-answers-without-state": [call_modern(1, "book", {"order": "A1"}, inputResponses=details)],
        "book-invalid-answer": [call_modern(1, "book", {"order": "A1"}, requestState="@S0@",
                                            inputResponses={"details": {"action": "accept", "content": {"reason": "stolen"}}})],
        "book-decline": [call_modern(1, "book", {"order": "A1"}, requestState="@S0@",
                                     inputResponses={"details": {"action": "decline"}})],
        "book-garbage-state": [call_modern(1, "book", {"order": "A1"}, requestState="AAAA.BBBB", inputResponses=details)],
        "signin-url": [call_modern(1, "signin", caps=ALL_CAPS), "@complete",
                       call_modern(2, "signin", caps=ALL_CAPS, requestState="@R@",
                                   inputResponses={"signin": {"action": "accept"}})],
        "signin-url-not-complete": [call_modern(1, "signin", caps=ALL_CAPS),
                                    call_modern(2, "signin", caps=ALL_CAPS, requestState="@R@",
                                                inputResponses={"signin": {"action": "accept"}})],
        "signin-seeded-flow": [call_modern(1, "signin", caps=ALL_CAPS, requestState="@S2@",
                                           inputResponses={"signin": {"action": "accept"}})],
        "book-three-rounds": [call_modern(1, "book", {"order": "C3"}),
                              call_modern(2, "book", {"order": "C3"}, requestState="@R@", inputResponses=details),
                              call_modern(3, "book", {"order": "C3"}, requestState="@R@",
                                          inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}})],
        "signin-form-only": [call_modern(1, "signin")],
        "gate": [call_modern(1, "gate", caps=ALL_CAPS), call_modern(2, "gate")],
        "multi": [call_modern(1, "multi", caps=ALL_CAPS),
                  call_modern(2, "multi", caps=ALL_CAPS, requestState="@S3@", inputResponses={
                      "name": {"action": "accept", "content": {"name": "Ana"}},
                      "sample": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
                      "roots": {"roots": [{"uri": "file:///tmp"}]}})],
        "multi-missing-caps": [call_modern(1, "multi")],
        "reserve": [call_modern(1, "reserve", {"n": 3}, requestState="@S4@",
                                inputResponses={"name": {"action": "accept", "content": {"name": "Ana"}}})],
        "prompt": [req(1, "prompts/get", {"name": "greet", "arguments": {}, "_meta": meta()}),
                   req(2, "prompts/get", {"name": "greet", "arguments": {}, "_meta": meta(), "requestState": "@S5@",
                                          "inputResponses": {"name": {"action": "accept", "content": {"name": "Bo"}}}})],
        "echo-with-progress-and-logs": [call_modern(1, "echo", {"a": [1, {"b": None}]}, caps={},
                                                    _meta=meta(logLevel="debug", progressToken="t"))],
        "unknown-tool-and-method": [call_modern(1, "nope"), req(2, "nothing/here", {"_meta": meta()})],
        "forced-modern": ["@rev 2026", req(1, "tools/list"), req(2, "initialize", {"protocolVersion": "2025-11-25"})],
        "legacy-without-session": [INIT_FORM, req(1, "tools/list"), req(2, "ping")],
        "notifications-and-responses": [note("notifications/cancelled", {"requestId": 1}), reply(1, {}),
                                        j({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}})],
        "malformed": ['{"jsonrpc":', "[1]", "null", j({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 3}),
                      "y" * 3100],
    }
    for name, lines in scripts.items():
        write("handle_modern", name, "\n".join(lines) + "\n")


def input_responses():
    seeds = [
        (0, {"details": {"action": "accept", "content": DETAILS}}),
        (0, {"details": {"action": "accept", "content": {"reason": "damaged", "date": "2026-12-01"}}}),
        (0, {"details": {"action": "accept", "content": {"reason": "stolen", "boxes": 9.5}}}),
        (0, {"details": {"action": "accept", "content": {"reason": "damaged", "date": "2026-02-30", "code": "ab"}}}),
        (0, {"details": {"action": "decline"}}),
        (0, {"details": {"action": "cancel"}}),
        (0, {"details": {"action": "accept"}}),
        (0, {"details": {"action": "accept", "content": []}}),
        (0, {"details": 5}),
        (0, {"confirm": {"action": "accept", "content": {"ok": True}}}),
        (0, {}),
        (0, []),
        (0, None),
        (1, {"confirm": {"action": "accept", "content": {"ok": True}}}),
        (1, {"confirm": {"action": "accept", "content": {"ok": "yes"}}}),
        (1, {"confirm": {"action": "decline"}, "details": {"action": "accept", "content": DETAILS}}),
        (2, {"signin": {"action": "accept"}}),
        (2, {"signin": {"action": "decline"}}),
        (2, {"signin": {"action": "accept", "content": {"x": 1}}}),
        (3, {"name": {"action": "accept", "content": {"name": "Ana"}},
             "sample": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
             "roots": {"roots": [{"uri": "file:///tmp", "name": "t"}]}}),
        (3, {"sample": {"role": "robot"}, "roots": {"roots": "no"}}),
        (3, {"roots": {"roots": []}}),
        (4, {"name": {"action": "accept", "content": {"name": ""}}}),
        (4, {"name": {"action": "accept", "content": {"name": "x" * 30}}}),
        (5, {"name": {"action": "accept", "content": {"name": "Bo"}}}),
        (5, {"name": {"action": "accept", "content": {"name": 7}}}),
    ]
    for i, (pick, value) in enumerate(seeds):
        write("input_responses", f"responses-{i:02}", bytes([pick]) + j(value).encode("utf-8"))
    write("input_responses", "not-json", bytes([0]) + b"{\"details\": ")


# ---------------------------------------------------------------- uri_template
def uri_template():
    """The template, a newline, the URI."""
    seeds = {
        "simple": ("test://template/{id}/data", "test://template/123/data"),
        "simple-two-segments": ("test://template/{id}/data", "test://template/1/2/data"),
        "simple-empty": ("test://template/{id}/data", "test://template//data"),
        "reserved": ("file:///{+path}", "file:///a/b/c.txt"),
        "reserved-then-simple": ("x://{+a}/{b}/z", "x://1/2/3/z"),
        "two-variables-escaped": ("db://{table}/{row}", "db://users/caf%C3%A9"),
        "broken-escape": ("db://{table}/{row}", "db://users/%zz"),
        "escape-split-char": ("x://{a}.x", "x://%C3.x"),
        "escape-overlong": ("x://{a}.x", "x://%C0%AF.x"),
        "escape-surrogate": ("x://{a}.x", "x://%ED%A0%80.x"),
        "escape-plus": ("x://{a}.x", "x://%+1.x"),
        "escape-four-bytes": ("x://{a}.{b}", "x://%F0%9F%98%80.%E6%97%A5.x"),
        "dot-inside-value": ("x://{a}.json", "x://v1.2.json"),
        "overlapping-literal": ("x://{a}aa", "x://baaa"),
        "overlapping-literal-long": ("x://{a}abab{b}abab", "x://ababababababababab"),
        "multibyte": ("x://é/{a}/日", "x://é/😀é/日"),
        "query-and-fragment": ("x://{a}?q={b}#{+c}", "x://p?q=1#f/g?h"),
        "fixed": ("x://fixed", "x://fixed"),
        "empty-template": ("", ""),
        "unsupported-operator": ("x://{?q}", "x://?q=1"),
        "unsupported-adjacent": ("x://{a}{b}", "x://ab"),
        "hostile-no-tail": ("test://template/{id}/data", "test://template/" + "a" * 3000 + "x"),
        "hostile-escapes": ("test://template/{id}/data", "test://template/" + "%41" * 1000 + "/dat"),
        "hostile-three-variables": ("x://{a}-{+b}-{c}-end", "x://" + "-" * 2000),
        "hostile-reserved": ("x://{+a}/{+b}/{+c}/z", "x://" + "/" * 2000 + "y"),
    }
    for name, (template, uri) in seeds.items():
        write("uri_template", name, template + "\n" + uri)


# ---------------------------------------------------------------- client_messages
def client_messages():
    """A revision byte ("0": 2025-11-25, "1": 2026-07-28), then the lines a server sends."""
    form = {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}},
            "required": ["name"]}
    lines = {
        "malformed": [
            '{"jsonrpc":"2.0","id":7,"method":"ping","params":[1,2]}',
            '{"jsonrpc":"2.0","id":null,"method":"ping"}',
            '{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}',
            '{"jsonrpc":"2.0","id":"e-1","method":"elicitation/create","params":"ask"}',
            '{"jsonrpc":"1.0","id":8,"method":"ping"}',
            '[{"jsonrpc":"2.0","id":9,"method":"ping"}]',
            '{"jsonrpc":"2.0","id":11,"method":"ping"',
            note("notifications/message", [1]),
            '{"jsonrpc":"2.0","id":3}',
            "not json",
        ],
        "requests": [
            req(1, "ping"),
            req(2, "no/such"),
            req(3, "roots/list"),
            req(4, "sampling/createMessage", {"messages": [], "maxTokens": 1}),
            req("e-2", "elicitation/create", {"mode": "form", "message": "Name?",
                                              "requestedSchema": form}),
            req("e-3", "elicitation/create", {"mode": "form", "message": "x",
                                              "requestedSchema": {"type": "array"}}),
            req("e-4", "elicitation/create", {"mode": "url", "message": "Sign in",
                                              "url": "https://example.com/a", "elicitationId": "e"}),
            note("notifications/elicitation/complete", {"elicitationId": "e"}),
            note("notifications/cancelled", {"requestId": "e-2"}),
            reply(99, {}),
        ],
    }
    for name, body in lines.items():
        for byte, revision in (("0", "2025"), ("1", "2026")):
            write("client_messages", f"{name}-{revision}", byte + "\n".join(body))
        # Each line on its own too, on the revision that still has requests.
        for i, line in enumerate(body):
            write("client_messages", f"{name}-{i}-2025", "0" + line)


def main():
    if os.path.isdir(ROOT):
        shutil.rmtree(ROOT)
    for make in (classify, schema, url_review, headers, sse, stdio_lines, handle_legacy, handle_modern,
                 input_responses, uri_template, client_messages):
        make()
    for target in sorted(os.listdir(ROOT)):
        print(f"{target}: {len(os.listdir(os.path.join(ROOT, target)))} seeds")


if __name__ == "__main__":
    main()
