// Interop peer: an MCP server on the TypeScript SDK 1.x (2025-11-25), written for
// frontdesk's interop matrix. The same three tools as every peer server:
//   ask_form  asks a form ({name}); returns "form:<action>:<name or ->"
//   ask_url   asks the person to open a URL; returns "url:<action>"
//   ask_twice asks two forms in one call, {name} (default "Grace") then {go}
//             (default true); returns "twice:<action1>:<name or ->:<action2>:<go or ->"
// Usage: node ts1-server.mjs stdio | http   (http prints "listening <url>" first)
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from 'sdk1/server/mcp.js';
import { StdioServerTransport } from 'sdk1/server/stdio.js';
import { StreamableHTTPServerTransport } from 'sdk1/server/streamableHttp.js';
import { isInitializeRequest } from 'sdk1/types.js';

// ask_twice's two forms: every field has a default.
const NAME_DEFAULTED = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name', default: 'Grace' } },
  required: ['name'],
};
const GO_FORM = {
  type: 'object',
  properties: { go: { type: 'boolean', title: 'Go ahead?', default: true } },
  required: ['go'],
};

function build() {
  const server = new McpServer({ name: 'ts1-peer', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('ask_form', { description: 'Asks your name' }, async () => {
    const r = await server.server.elicitInput({
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Your name' } }, required: ['name'] },
    });
    return { content: [{ type: 'text', text: `form:${r.action}:${r.content?.name ?? '-'}` }] };
  });
  server.registerTool('ask_twice', { description: 'Asks your name, then whether to go ahead' }, async () => {
    const first = await server.server.elicitInput({ message: 'What is your name?', requestedSchema: NAME_DEFAULTED });
    if (first.action !== 'accept') return { content: [{ type: 'text', text: `twice:${first.action}:-:-:-` }] };
    const second = await server.server.elicitInput({ message: 'Go ahead?', requestedSchema: GO_FORM });
    const go = second.content?.go ?? '-';
    return { content: [{ type: 'text', text: `twice:accept:${first.content?.name ?? '-'}:${second.action}:${go}` }] };
  });
  server.registerTool('ask_url', { description: 'Asks you to open a page' }, async () => {
    const r = await server.server.elicitInput({
      mode: 'url',
      message: 'Verify your account',
      url: 'https://verify.example.com/start?x=1',
      elicitationId: randomUUID(),
    });
    return { content: [{ type: 'text', text: `url:${r.action}` }] };
  });
  return server;
}

async function readJson(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body ? JSON.parse(body) : undefined;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  await build().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await build().connect(transport);
    }
    if (!transport) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null }));
      return;
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${http.address().port}/mcp`));
} else {
  console.error('usage: ts1-server.mjs stdio|http');
  process.exit(2);
}
