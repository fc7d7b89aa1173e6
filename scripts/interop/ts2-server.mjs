// Interop peer: an MCP server on the TypeScript SDK v2 (@modelcontextprotocol/server),
// written for frontdesk's interop matrix. Three tools, answered the same way by every
// peer server of the matrix:
//   ask_form  asks a form ({name}); returns "form:<action>:<name or ->"
//   ask_url   asks the person to open a URL; returns "url:<action>"
//   ask_twice asks two forms in one call, {name} (default "Grace") then {go}
//             (default true); returns "twice:<action1>:<name or ->:<action2>:<go or ->".
//             Two input_required rounds: the second carries the name in
//             requestState (sealed with the SDK's codec), as its retry brings
//             only the go answer.
// Usage: node ts2-server.mjs stdio | http   (http prints "listening <url>" first)
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import {
  McpServer,
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
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
// ask_twice's two forms: every field has a default.
const NAME_DEFAULTED_FORM = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Your name', default: 'Grace' } },
  required: ['name'],
};
const NAME_DEFAULTED = fromJsonSchema(NAME_DEFAULTED_FORM);
const GO_FORM = {
  type: 'object',
  properties: { go: { type: 'boolean', title: 'Go ahead?', default: true } },
  required: ['go'],
};
const GO = fromJsonSchema(GO_FORM);

// ask_twice's second round carries the name in requestState, sealed with the SDK's
// HMAC codec (a tampered state is refused before the handler runs). The key is
// per process: one process serves every round here.
const STATE = createRequestStateCodec({ key: randomBytes(32) });

const text = (t) => ({ content: [{ type: 'text', text: t }] });

// ask_twice, one round per call: no state yet is the name's round; a state
// holding the name is the go round.
async function askTwice(ctx) {
  const responses = ctx.mcpReq.inputResponses;
  const state = ctx.mcpReq.requestState();
  if (state === undefined) {
    const answer = inputResponse(responses, 'name');
    if (answer.kind === 'elicit' && answer.action !== 'accept') return text(`twice:${answer.action}:-:-:-`);
    const content = acceptedContent(responses, 'name', NAME_DEFAULTED);
    if (!content) {
      return inputRequired({
        inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: NAME_DEFAULTED_FORM }) },
      });
    }
    return askGo(await STATE.mint({ name: content.name }));
  }
  const { name } = state;
  const answer = inputResponse(responses, 'go');
  if (answer.kind === 'elicit' && answer.action !== 'accept') return text(`twice:accept:${name}:${answer.action}:-`);
  const content = acceptedContent(responses, 'go', GO);
  if (!content) return askGo(await STATE.mint({ name }));
  return text(`twice:accept:${name}:accept:${content.go}`);
}

function askGo(requestState) {
  return inputRequired({
    inputRequests: { go: inputRequired.elicit({ message: 'Go ahead?', requestedSchema: GO_FORM }) },
    requestState,
  });
}

function build() {
  const server = new McpServer(
    { name: 'ts2-peer', version: '1.0.0' },
    { capabilities: { tools: {} }, requestState: { verify: STATE.verify } },
  );
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
  server.registerTool('ask_twice', { description: 'Asks your name, then whether to go ahead' }, askTwice);
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
