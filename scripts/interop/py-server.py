"""Interop peer: an MCP server on the Python SDK v2 (`mcp`, MCPServer), written
for frontdesk's interop matrix. The same three tools as every peer server:

  ask_form  asks a form ({name}); returns "form:<action>:<name or ->"
  ask_url   asks the person to open a URL; returns "url:<action>"
  ask_twice asks two forms in one call, {name} (default "Grace") then {go}
            (default true); returns "twice:<action1>:<name or ->:<action2>:<go or ->".
            On 2026-07-28 two input_required rounds: the second carries the
            name in request_state (sealed by the SDK), as its retry brings only
            the go answer.

Usage: python py-server.py stdio | http   (http prints "listening <url>" first)
"""

import socket
import sys
import uuid
from typing import Annotated

import anyio
import uvicorn
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)
from mcp_types import ElicitRequest, ElicitRequestURLParams, InputRequiredResult
from pydantic import BaseModel, Field, StrictBool, StrictStr

mcp = MCPServer("py-peer")


class Name(BaseModel):
    name: str


async def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@mcp.tool(description="Asks your name")
async def ask_form(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    if isinstance(answer, AcceptedElicitation):
        return f"form:accept:{answer.data.name}"
    return f"form:{answer.action}:-"


URL = "https://verify.example.com/start?x=1"


@mcp.tool(description="Asks you to open a page")
async def ask_url(ctx: Context) -> str | InputRequiredResult:
    if (ctx.protocol_version or "") >= "2026-07-28":
        answer = (ctx.input_responses or {}).get("verify")
        if answer is None:
            ask = ElicitRequest(params=ElicitRequestURLParams(message="Verify your account", url=URL))
            return InputRequiredResult(input_requests={"verify": ask})
        return f"url:{answer.action}"
    result = await ctx.elicit_url("Verify your account", URL, elicitation_id=str(uuid.uuid4()))
    return f"url:{result.action}"


# ask_twice's two forms, as every peer server asks them: each field has a default
# and stays required (the default is only shown, an answer must still carry it).
class DefaultedName(BaseModel):
    name: StrictStr = Field(title="Your name", json_schema_extra={"default": "Grace"})


class Go(BaseModel):
    go: StrictBool = Field(title="Go ahead?", json_schema_extra={"default": True})


async def ask_defaulted_name() -> Elicit[DefaultedName]:
    return Elicit("What is your name?", DefaultedName)


# The second question depends on the first: asked only once the name is
# accepted, so on 2026-07-28 it is a round of its own, the name kept in the
# SDK's sealed request_state.
async def ask_go(name: Annotated[ElicitationResult[DefaultedName], Resolve(ask_defaulted_name)]) -> Elicit[Go] | None:
    return Elicit("Go ahead?", Go) if isinstance(name, AcceptedElicitation) else None


@mcp.tool(description="Asks your name, then whether to go ahead")
async def ask_twice(
    name: Annotated[ElicitationResult[DefaultedName], Resolve(ask_defaulted_name)],
    go: Annotated[ElicitationResult[Go], Resolve(ask_go)],
) -> str:
    if not isinstance(name, AcceptedElicitation):
        return f"twice:{name.action}:-:-:-"
    if isinstance(go, AcceptedElicitation):
        return f"twice:accept:{name.data.name}:accept:{str(go.data.go).lower()}"
    return f"twice:accept:{name.data.name}:{go.action}:-"


def serve_http() -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    app = mcp.streamable_http_app(host="127.0.0.1")
    print(f"listening http://127.0.0.1:{port}/mcp", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    anyio.run(lambda: server.serve(sockets=[sock]))


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode == "stdio":
        mcp.run("stdio")
    elif mode == "http":
        serve_http()
    else:
        sys.exit("usage: py-server.py stdio|http")
