// Interop peer: an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server),
// written for frontdesk's interop matrix. Two tools, answered the same way by every
// peer server of the matrix:
//   ask_form  asks a form ({name}); returns "form:<action>:<name or ->"
//   ask_url   asks the person to open a URL; returns "url:<action>"
// Usage: node ts2-server.mjs stdio | http   (http prints "listening <url>" first)
import { createServer } from 'node:http';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';

const NAME_FORM = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name' } },
  required: ['name'],
};
// Accepted content is checked against the form, as the SDK's docs show
// (`acceptedContent(responses, key, schema)`): an answer that does not fit
// is asked again, never acted on.
const NAME = fromJsonSchema(NAME_FORM);

function build() {
  const server = new McpServer({ name: 'ts2-peer', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('ask_form', { description: 'Asks your name' }, async (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'name');
    if (answer.kind === 'elicit' && answer.action !== 'accept') {
      return { content: [{ type: 'text', text: `form:${answer.action}:-` }] };
    }
    const content = acceptedContent(ctx.mcpReq.inputResponses, 'name', NAME);
    if (!content) {
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: NAME_FORM }) },
      });
    }
    return { content: [{ type: 'text', text: `form:accept:${content.name}` }] };
  });
  server.registerTool('ask_url', { description: 'Asks you to open a page' }, async (ctx) => {
    const answer = ctx.mcpReq.inputResponses?.verify;
    if (!answer) {
      return inputRequired({
        inputRequests: {
          verify: inputRequired.elicitUrl({ message: 'Verify your account', url: 'https://verify.example.com/start?x=1' }),
        },
      });
    }
    return { content: [{ type: 'text', text: `url:${answer.action}` }] };
  });
  return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
  serveStdio(() => build());
} else if (mode === 'http') {
  const handler = createMcpHandler(() => build());
  const http = createServer(toNodeHandler(handler));
  http.listen(0, '127.0.0.1', () => {
    console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  console.error('usage: ts2-server.mjs stdio|http');
  process.exit(2);
}
