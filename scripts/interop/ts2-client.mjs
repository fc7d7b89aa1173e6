// Interop peer: an MCP client on the TypeScript SDK v2 (@modelcontextprotocol/client),
// written for frontdesk's interop matrix. Against frontdesk's interop server it calls
// ask_form and ask_url once per answer (accept, decline, cancel) and ask_twice (two
// forms in one call, accepted with each field's default) and checks the tool's
// report. One line per case: "PASS|FAIL <case> [why]".
// Usage: node ts2-client.mjs <revision> stdio <server command…>
//        node ts2-client.mjs <revision> http <url>
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [revision, transportKind, ...target] = process.argv.slice(2);

function transport() {
  if (transportKind === 'stdio') {
    return new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'ignore' });
  }
  return new StreamableHTTPClientTransport(new URL(target[0]));
}

// An accepted form: each property's default as the schema gave it; `name`
// without one is "Ann".
function formAnswer(schema) {
  const content = {};
  for (const [key, property] of Object.entries(schema?.properties ?? {})) {
    if (property && Object.hasOwn(property, 'default')) content[key] = property.default;
    else if (key === 'name') content[key] = 'Ann';
  }
  return content;
}

async function runCase(tool, action) {
  const options = { capabilities: { elicitation: { form: {}, url: {} } } };
  if (revision === '2026-07-28') options.versionNegotiation = { mode: { pin: '2026-07-28' } };
  const client = new Client({ name: 'ts2-interop-client', version: '1.0.0' }, options);
  client.setRequestHandler('elicitation/create', async (request) => {
    const p = request.params;
    if (action !== 'accept') return { action };
    if (p.mode === 'url') {
      // The person finishes in the browser: a local page (frontdesk's sign-in
      // page) completes the flow; a remote one (the SDK peers' example.com)
      // cannot be reached from the test machine and needs nothing.
      if (['127.0.0.1', 'localhost'].includes(new URL(p.url).hostname)) await fetch(p.url);
      return { action: 'accept' };
    }
    return { action: 'accept', content: formAnswer(p.requestedSchema) };
  });
  await client.connect(transport());
  try {
    const result = await client.callTool({ name: tool, arguments: {} });
    return result.content?.[0]?.text;
  } finally {
    await client.close();
  }
}

const cases = [];
for (const tool of ['ask_form', 'ask_url']) {
  for (const action of ['accept', 'decline', 'cancel']) {
    const expected = tool === 'ask_form'
      ? `form:${action}:${action === 'accept' ? 'Ann' : '-'}`
      : `url:${action}`;
    cases.push([tool, action, expected]);
  }
}
// Two questions in one call, each answered with its default.
cases.push(['ask_twice', 'accept', 'twice:accept:Grace:accept:true']);

let failed = 0;
for (const [tool, action, expected] of cases) {
  const name = `ts2-client->frontdesk ${revision} ${transportKind} ${tool} ${action}`;
  try {
    const got = await Promise.race([
      runCase(tool, action),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), 20000)),
    ]);
    if (got === expected) console.log(`PASS ${name}`);
    else { failed++; console.log(`FAIL ${name}: got ${JSON.stringify(got)}, want ${expected}`); }
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${String(e?.message ?? e).split('\n')[0]}`);
  }
}
process.exit(failed === 0 ? 0 : 1);
