// An upstream MCP server over stdio, written against the wire, that lists tools under new names on every listing and
// asks to be listed again as soon as it has answered, ROUNDS times once `churn` is called: each listing offers TOOLS
// tools (`t<round>_<n>`) whose descriptions hold DESCRIPTION characters, beside `echo` and `churn`. Each new name is a
// first use: the gateway pins it, definition and all, in its pin file. `rounds` answers how many listings it sent, and
// so does the file LISTINGS, when given, rewritten after each (a count the gateway cannot hold up by making calls wait).
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import process from 'node:process';

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const TOOLS = Number(process.env.TOOLS ?? 10);
const DESCRIPTION = Number(process.env.DESCRIPTION ?? 700_000);
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const object = { type: 'object' };
const readOnly = { readOnlyHint: true };
let round = 0;
let left = 0;

function listing() {
  const tools = [
    { name: 'echo', description: 'Echoes.', inputSchema: object, annotations: readOnly },
    { name: 'churn', description: 'Lists new tools, again and again.', inputSchema: object, annotations: readOnly },
    { name: 'rounds', description: 'How many listings were sent.', inputSchema: object, annotations: readOnly },
  ];
  for (let index = 0; index < TOOLS; index += 1) {
    tools.push({ name: `t${round}_${index}`, description: `${index} ${'d'.repeat(DESCRIPTION)}`, inputSchema: object, annotations: readOnly });
  }
  return tools;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'churning', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools: listing() } });
    round += 1;
    if (process.env.LISTINGS !== undefined) writeFileSync(process.env.LISTINGS, String(round));
    if (left > 0) {
      left -= 1;
      send({ method: 'notifications/tools/list_changed' });
    }
  } else if (message.method === 'tools/call') {
    const name = message.params.name;
    if (name === 'churn') {
      left = ROUNDS - 1;
      send({ method: 'notifications/tools/list_changed' });
    }
    send({ id: message.id, result: { content: [{ type: 'text', text: name === 'rounds' ? String(round) : `${name} ok` }] } });
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
