"""Interop peer: an MCP server on the Python SDK v2 (`mcp`, MCPServer), written
for frontdesk's interop matrix. The same two tools as every peer server:

  ask_form  asks a form ({name}); returns "form:<action>:<name or ->"
  ask_url   asks the person to open a URL; returns "url:<action>"

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
from pydantic import BaseModel

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
