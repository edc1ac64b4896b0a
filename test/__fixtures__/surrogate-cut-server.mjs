// An upstream MCP server over stdio, written against the wire, whose texts put a character outside the Basic
// Multilingual Plane (a surrogate pair in JavaScript's strings) exactly where the gateway clips them: a description
// of 4,095 characters then an emoji (the clip is 4,096), and an isError text of 999 then an emoji (the clip is 1,000).
// Clipped between its two halves, the emoji leaves a lone surrogate, which the hidden-character scan removes from
// every upstream text: a lone half is not text.
import { createInterface } from 'node:readline';
import process from 'node:process';

const EMOJI = '\u{1F600}';
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
const tools = [
  { name: 'long_description', description: `${'d'.repeat(4095)}${EMOJI} and more`, inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'long_error', description: 'Fails with a long text.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
];

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'surrogates', version: '1' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools } });
  } else if (message.method === 'tools/call') {
    send({ id: message.id, result: { isError: true, content: [{ type: 'text', text: `${'e'.repeat(999)}${EMOJI} and more` }] } });
  } else if (message.id !== undefined && message.method !== undefined) {
    send({ id: message.id, error: { code: -32601, message: 'Method not found' } });
  }
});
