#!/usr/bin/env python3
"""Record what `frontdesk serve` says on the wire, for before/after comparisons.

Usage:
  scripts/wire-transcript.py FRONTDESK_BINARY OUT_DIR

Drives the demo server (with the conformance fixtures) through a fixed script of
requests, over stdio and over Streamable HTTP, on both protocol revisions: every tool
and prompt, each answered (forms filled from their schemas, sign-ins completed on the
demo's page), plus malformed and refused input. Server requests are answered
automatically. Writes OUT_DIR/stdio.jsonl and OUT_DIR/http.jsonl: one line per message
the server sent (HTTP: with status and content type), values that are random by design
masked (requestState, flow ids, connect tokens, session ids, ports). Each line is
written twice over: `ordered` keeps the server's key order, `canonical` sorts keys.

Compare two recordings with:  diff <(jq -c .canonical A/stdio.jsonl) <(jq -c .canonical B/stdio.jsonl)
(and the same with .ordered to see key-order changes). Standard library only.
"""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse

MODERN = "2026-07-28"
LEGACY = "2025-11-25"
CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {"listChanged": True}}


def meta(caps=None):
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "transcript", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": CAPS if caps is None else caps,
    }


# ---------------------------------------------------------------- masking ----

TOKEN_RE = re.compile(r"token=[A-Za-z0-9_\-%.~]+")
PORT_RE = re.compile(r"127\.0\.0\.1:\d+")
HEX32_RE = re.compile(r"\b[0-9a-f]{32}\b")


def mask(value, key=None):
    if isinstance(value, dict):
        return {k: mask(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        if key == "requestState":
            return "<state>"
        if key == "elicitationId":
            return "<flow>"
        v = TOKEN_RE.sub("token=<token>", value)
        v = PORT_RE.sub("127.0.0.1:<port>", v)
        v = HEX32_RE.sub("<hex32>", v)
        return v
    return value


class Recorder:
    def __init__(self, path):
        self.out = open(path, "w", encoding="utf-8")

    def note(self, step):
        self.out.write(json.dumps({"step": step}) + "\n")

    def record(self, message, **extra):
        m = mask(message)
        line = {"ordered": json.dumps(m), "canonical": json.dumps(m, sort_keys=True)}
        line.update(extra)
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()


# ------------------------------------------------------- answering forms ----

def fill(schema):
    """A valid answer for a requestedSchema: defaults first, then the first option, then
    a value of the right type and format within the bounds."""
    content = {}
    for key, prop in (schema.get("properties") or {}).items():
        if "default" in prop:
            content[key] = prop["default"]
            continue
        t = prop.get("type")
        if t == "array":
            items = prop.get("items", {})
            opts = items.get("enum") or [o["const"] for o in items.get("anyOf", [])]
            content[key] = opts[: max(1, prop.get("minItems", 1))]
        elif "enum" in prop:
            content[key] = prop["enum"][0]
        elif "oneOf" in prop:
            content[key] = prop["oneOf"][0]["const"]
        elif t == "boolean":
            content[key] = True
        elif t in ("integer", "number"):
            content[key] = prop.get("minimum", 1)
        else:
            fmt = prop.get("format")
            content[key] = {
                "email": "ann@example.com",
                "date": "2026-12-24",
                "date-time": "2026-12-24T10:00:00Z",
                "uri": "https://example.com/x",
            }.get(fmt, "answer")
    return content


def sign_in(url):
    """Complete a demo sign-in: GET the page, POST its form (as a browser would)."""
    parts = urllib.parse.urlsplit(url)
    token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", parts.path + "?" + parts.query)
    conn.getresponse().read()
    body = urllib.parse.urlencode({"token": token, "email": "ann@example.com", "password": "x"})
    origin = f"{parts.scheme}://{parts.netloc}"
    conn.request(
        "POST",
        parts.path,
        body,
        {"Content-Type": "application/x-www-form-urlencoded", "Origin": origin},
    )
    r = conn.getresponse()
    r.read()
    return r.status


def answer_request(method, params):
    """Our answer to one server request / input request."""
    if method == "elicitation/create":
        if params.get("mode") == "url":
            sign_in(params["url"])
            return {"action": "accept"}
        return {"action": "accept", "content": fill(params.get("requestedSchema", {}))}
    if method == "sampling/createMessage":
        return {"role": "assistant", "content": {"type": "text", "text": "Paris"}, "model": "m"}
    if method == "roots/list":
        return {"roots": [{"uri": "file:///tmp/project", "name": "project"}]}
    return {}


# ----------------------------------------------------------------- script ----

TOOLS_LEGACY = [
    ("book_return", {"order_id": "A-1001"}),
    ("connect_store_account", {}),
    ("test_elicitation", {"message": "Please provide your information"}),
    ("test_elicitation_sep1034_defaults", {}),
    ("test_elicitation_sep1330_enums", {}),
    ("test_missing_capability", {}),
    ("test_logging_tool", {}),
    ("test_streaming_elicitation", {}),
    ("no_such_tool", {}),
]
TOOLS_MODERN = [
    ("book_return", {"order_id": "A-1001"}),
    ("connect_store_account", {}),
    ("test_input_required_result_elicitation", {}),
    ("test_input_required_result_sampling", {}),
    ("test_input_required_result_list_roots", {}),
    ("test_input_required_result_request_state", {}),
    ("test_input_required_result_multiple_inputs", {}),
    ("test_input_required_result_multi_round", {}),
    ("test_input_required_result_tampered_state", {}),
    ("test_input_required_result_capabilities", {}),
    ("test_missing_capability", {}),
    ("test_logging_tool", {}),
    ("test_elicitation", {"message": "hello"}),
    ("no_such_tool", {}),
]
RAW_BAD = [
    "{not json",
    "[]",
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[]}',
    '{"jsonrpc":"2.0","id":1}',
]


class Ids:
    def __init__(self):
        self.n = 0

    def __call__(self):
        self.n += 1
        return self.n


def modern_calls(send, rec, ids):
    """The 2026-07-28 part, over any `send(message) -> [messages]` transport."""
    rec.note("2026-07-28 discover and lists")
    for method in ["server/discover", "tools/list", "prompts/list", "ping", "initialize"]:
        send({"jsonrpc": "2.0", "id": ids(), "method": method, "params": {"_meta": meta()}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/list", "params": {}})
    bad = meta()
    bad["io.modelcontextprotocol/protocolVersion"] = "v999.0.0"
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/list", "params": {"_meta": bad}})
    calls = [("tools/call", {"name": n, "arguments": a}) for n, a in TOOLS_MODERN]
    calls.append(("prompts/get", {"name": "test_input_required_result_prompt", "arguments": {}}))
    for method, params in calls:
        rec.note(f"2026-07-28 {method} {params['name']}")
        params = dict(params, _meta=meta())
        replies = send({"jsonrpc": "2.0", "id": ids(), "method": method, "params": params})
        for _ in range(5):
            result = next((r.get("result") for r in replies if "result" in r), None)
            if not result or result.get("resultType") != "input_required":
                break
            responses = {
                k: answer_request(r["method"], r.get("params", {}))
                for k, r in (result.get("inputRequests") or {}).items()
            }
            retry = dict(params, inputResponses=responses)
            if "requestState" in result:
                state = result["requestState"]
                if params["name"] == "test_input_required_result_tampered_state":
                    state = state[:-4] + ("AAAA" if not state.endswith("AAAA") else "BBBB")
                retry["requestState"] = state
            replies = send({"jsonrpc": "2.0", "id": ids(), "method": method, "params": retry})
    rec.note("2026-07-28 form-only client asks for a URL")
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {
        "name": "connect_store_account", "arguments": {}, "_meta": meta({"elicitation": {}})}})
    rec.note("2026-07-28 invalid answer")
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {
        "name": "test_input_required_result_elicitation", "arguments": {}, "_meta": meta(),
        "inputResponses": {"user_name": {"action": "accept", "content": {"name": 12345}}}}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {
        "name": "test_input_required_result_elicitation", "arguments": {}, "_meta": meta(),
        "inputResponses": "nope"}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {
        "name": "book_return", "arguments": {"order_id": "A"}, "_meta": meta(),
        "requestState": "garbage"}})


# ------------------------------------------------------------------ stdio ----

def run_stdio(binary, out_dir):
    rec = Recorder(os.path.join(out_dir, "stdio.jsonl"))
    proc = subprocess.Popen(
        [binary, "serve", "--stdio", "--conformance-fixtures"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    ids = Ids()

    def read():
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("server closed stdout")
        m = json.loads(line)
        rec.record(m)
        return m

    def write_raw(text):
        proc.stdin.write(text.encode() + b"\n")
        proc.stdin.flush()

    def send(message):
        """Send; answer server requests; return what arrived up to our response."""
        write_raw(json.dumps(message))
        if "id" not in message:
            return []
        got = []
        while True:
            m = read()
            got.append(m)
            if m.get("id") == message["id"] and "method" not in m:
                return got
            if "method" in m and "id" in m:
                reply = answer_request(m["method"], m.get("params", {}))
                write_raw(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": reply}))

    rec.note("malformed lines")
    for raw in RAW_BAD:
        write_raw(raw)
        read()
    rec.note("2025-11-25 handshake")
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/list", "params": {}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": CAPS,
        "clientInfo": {"name": "transcript", "version": "1"}}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for method in ["ping", "tools/list", "prompts/list", "resources/list"]:
        send({"jsonrpc": "2.0", "id": ids(), "method": method, "params": {}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "logging/setLevel", "params": {"level": "info"}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {"arguments": {}}})
    for name, args in TOOLS_LEGACY:
        rec.note(f"2025-11-25 tools/call {name}")
        send({"jsonrpc": "2.0", "id": ids(), "method": "tools/call",
              "params": {"name": name, "arguments": args, "_meta": {"progressToken": "p1"}}})
    send({"jsonrpc": "2.0", "id": ids(), "method": "prompts/get",
          "params": {"name": "test_input_required_result_prompt", "arguments": {}}})
    modern_calls(send, rec, ids)
    proc.stdin.close()
    proc.wait(timeout=20)


# ------------------------------------------------------------------- http ----

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def parse_sse(body):
    events = []
    for block in body.split("\n\n"):
        data = [l[5:].lstrip() for l in block.split("\n") if l.startswith("data:")]
        ids = [l[3:].strip() for l in block.split("\n") if l.startswith("id:")]
        if data and data != [""]:
            events.append((ids[0] if ids else None, json.loads("\n".join(data))))
    return events


def run_http(binary, out_dir):
    rec = Recorder(os.path.join(out_dir, "http.jsonl"))
    port = free_port()
    proc = subprocess.Popen(
        [binary, "serve", "--http", f"127.0.0.1:{port}", "--conformance-fixtures"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    ids = Ids()
    session = {}

    def post(message, headers=None, raw=None, stream_answer=True):
        body = raw if raw is not None else json.dumps(message)
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        modern = message is not None and "_meta" in (message.get("params") or {})
        if modern:
            h["MCP-Protocol-Version"] = MODERN
            h["Mcp-Method"] = message.get("method", "")
            name = (message.get("params") or {}).get("name")
            if name is not None:
                h["Mcp-Name"] = name
        elif "sid" in session:
            h["Mcp-Session-Id"] = session["sid"]
            h["MCP-Protocol-Version"] = LEGACY
        h.update(headers or {})
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/mcp", body.encode(), h)
        r = conn.getresponse()
        ctype = r.getheader("Content-Type", "")
        if r.getheader("Mcp-Session-Id"):
            session["sid"] = r.getheader("Mcp-Session-Id")
        got = []
        if ctype.startswith("text/event-stream"):
            buf = ""
            while True:
                chunk = r.read1(65536).decode()
                if not chunk:
                    break
                buf += chunk
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    for eid, m in parse_sse(block + "\n\n"):
                        rec.record(m, status=r.status, type="sse", event_id=eid)
                        got.append(m)
                        if "method" in m and "id" in m and stream_answer:
                            reply = answer_request(m["method"], m.get("params", {}))
                            post({"jsonrpc": "2.0", "id": m["id"], "result": reply})
        else:
            data = r.read().decode()
            m = json.loads(data) if data else None
            rec.record(m, status=r.status, type=ctype.split(";")[0])
            if m is not None:
                got.append(m)
        conn.close()
        return got

    rec.note("transport refusals")
    post(None, raw="{not json")
    post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Content-Type": "text/plain"})
    post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Accept": "text/html"})
    post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Origin": "http://evil.example"})
    post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    rec.note("2025-11-25 session")
    post({"jsonrpc": "2.0", "id": ids(), "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": CAPS,
        "clientInfo": {"name": "transcript", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for method in ["ping", "tools/list", "prompts/list"]:
        post({"jsonrpc": "2.0", "id": ids(), "method": method, "params": {}})
    post({"jsonrpc": "2.0", "id": ids(), "method": "ping"}, headers={"Mcp-Session-Id": "nope"})
    for name, args in TOOLS_LEGACY:
        rec.note(f"2025-11-25 tools/call {name}")
        post({"jsonrpc": "2.0", "id": ids(), "method": "tools/call",
              "params": {"name": name, "arguments": args}})
    rec.note("2026-07-28 header mismatch")
    post({"jsonrpc": "2.0", "id": ids(), "method": "tools/call", "params": {
        "name": "book_return", "arguments": {}, "_meta": meta()}}, headers={"Mcp-Name": "other"})
    modern_calls(post, rec, ids)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session.get("sid", "")})
    r = conn.getresponse()
    r.read()
    rec.record({"delete": r.status})
    proc.terminate()
    proc.wait(timeout=20)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    binary, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    run_stdio(binary, out_dir)
    run_http(binary, out_dir)
    print(f"transcripts written to {out_dir}")


if __name__ == "__main__":
    main()
