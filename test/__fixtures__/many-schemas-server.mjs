// An upstream MCP server over stdio, written against the wire, that lists `TOOLS` tools (default 300), each taking
// an object of 995 string properties (or, with the argument `false`, one whose member `x` has 995 properties each `false`): each schema is within the 1,000 objects toolgate compiles (about half a second
// of ajv's compilation each), and all of them within the 8 MiB a listing may take. `relist` renames them (`again_0`…)
// and answers after sending `notifications/tools/list_changed`: the gateway lists them again, each new to it.
import { createInterface } from 'node:readline';
import process from 'node:process';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const count = Number(process.env.TOOLS ?? 300);
// With the argument `false`, each property's schema is `false` (a property that must be absent), one level down (the
// SDK asks a tool's own properties to be objects): no object or array.
const refused = process.argv[2] === 'false';
const properties = refused
  ? { x: { type: 'object', properties: Object.fromEntries(Array.from({ length: 995 }, (_, index) => [`p${index}`, false])) } }
  : Object.fromEntries(Array.from({ length: 995 }, (_, index) => [`p${index}`, { type: 'string' }]));
const listing = (prefix) => [
  { name: 'relist', description: 'Lists its tools again.', inputSchema: { type: 'object' } },
  ...Array.from({ length: count }, (_, index) => ({ name: `${prefix}_${index}`, description: 'Takes many strings.', inputSchema: { type: 'object', properties, required: [`p${index}`] } })),
];
let tools = listing('wide');

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'many', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools } });
  } else if (message.method === 'tools/call') {
    if (message.params.name === 'relist') {
      tools = listing('again');
      send({ method: 'notifications/tools/list_changed' });
    }
    send({ id: message.id, result: { content: [{ type: 'text', text: `${message.params.name} ok` }] } });
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
