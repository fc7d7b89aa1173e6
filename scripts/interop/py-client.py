"""Interop peer: an MCP client on the Python SDK v2 (`mcp`), written for
frontdesk's interop matrix: against frontdesk's interop server it calls ask_form
and ask_url once per answer (accept, decline, cancel) and ask_twice (two forms in
one call, accepted with each field's default) and checks the tool's report. One
line per case: "PASS|FAIL <case> [why]".

Usage: python py-client.py <revision> stdio <server command...>
       python py-client.py <revision> http <url>
"""

import sys
import urllib.parse
import urllib.request

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters

revision, transport_kind, *target = sys.argv[1:]


def server():
    if transport_kind == "stdio":
        return StdioServerParameters(command=target[0], args=target[1:])
    return target[0]


def form_answer(schema: dict) -> dict:
    """An accepted form: each property's default as the schema gave it; `name` without one is "Ann"."""
    content = {}
    for key, prop in (schema.get("properties") or {}).items():
        if isinstance(prop, dict) and "default" in prop:
            content[key] = prop["default"]
        elif key == "name":
            content[key] = "Ann"
    return content


async def run_case(tool: str, action: str) -> str:
    async def elicit(context, params):
        if action != "accept":
            return types.ElicitResult(action=action)
        if getattr(params, "mode", None) == "url":
            # The person finishes in the browser: a local page (frontdesk's
            # sign-in page) completes the flow; a remote one (the SDK peers'
            # example.com) cannot be reached from the test machine.
            if urllib.parse.urlsplit(params.url).hostname in ("127.0.0.1", "localhost"):
                await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(params.url).read())
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content=form_answer(params.requested_schema))

    mode = "2026-07-28" if revision == "2026-07-28" else "legacy"
    async with Client(server(), elicitation_callback=elicit, mode=mode) as client:
        result = await client.call_tool(tool, {})
        return result.content[0].text


async def main() -> int:
    cases = []
    for tool in ("ask_form", "ask_url"):
        for action in ("accept", "decline", "cancel"):
            if tool == "ask_form":
                expected = f"form:{action}:{'Ann' if action == 'accept' else '-'}"
            else:
                expected = f"url:{action}"
            cases.append((tool, action, expected))
    # Two questions in one call, each answered with its default.
    cases.append(("ask_twice", "accept", "twice:accept:Grace:accept:true"))
    failed = 0
    for tool, action, expected in cases:
        name = f"py-client->frontdesk {revision} {transport_kind} {tool} {action}"
        try:
            with anyio.fail_after(20):
                got = await run_case(tool, action)
            if got == expected:
                print(f"PASS {name}", flush=True)
            else:
                failed += 1
                print(f"FAIL {name}: got {got!r}, want {expected}", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is one report line
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
