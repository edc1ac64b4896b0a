// An upstream MCP server over stdio, written against the wire, whose schemas ask for `uniqueItems` on arrays of
// objects, which ajv checks by comparing every item with every other: `unique_out` answers with a structured value
// of `count` distinct objects under such an output schema (20,000 fit the output ceiling of 256 KiB), and
// `unique_in` takes such an array as its argument (6,000 fit the arguments' 64 KiB). `enum_out` answers with 40,000
// numbers under an output schema whose items must be one of 30,000 numbers, which ajv checks one by one for each item.
import { createInterface } from 'node:readline';
import process from 'node:process';

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const unique = { type: 'object', properties: { x: { type: 'array', uniqueItems: true } } };
const big = Array.from({ length: 30_000 }, (_, index) => index + 10_000);
const tools = [
  { name: 'enum_out', description: 'Numbers from a long list.', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { x: { type: 'array', items: { enum: big } } } } },
  { name: 'unique_out', description: 'A structured value of distinct objects.', inputSchema: { type: 'object' }, outputSchema: unique },
  { name: 'unique_in', description: 'Takes distinct objects.', inputSchema: unique },
];

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'quadratic', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools } });
  } else if (message.method === 'tools/call') {
    const { name, arguments: args = {} } = message.params;
    if (name === 'enum_out') {
      send({ id: message.id, result: { content: [{ type: 'text', text: 'listed' }], structuredContent: { x: Array.from({ length: 40_000 }, () => 39_999) } } });
    } else if (name === 'unique_out') {
      const x = Array.from({ length: args.count ?? 2 }, (_, index) => ({ a: index }));
      send({ id: message.id, result: { content: [{ type: 'text', text: 'distinct' }], structuredContent: { x } } });
    } else {
      send({ id: message.id, result: { content: [{ type: 'text', text: `${name} ok` }] } });
    }
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
