// A stdio MCP upstream that writes the wire itself: its `deep` tool answers with a plain text block and a result
// `_meta` nested RAW_DEPTH levels (built as text, so no serializer of its own overflows).
import { createInterface } from 'node:readline';

const depth = Number(process.env.RAW_DEPTH ?? '20000');
const send = (text) => process.stdout.write(`${text}\n`);
const deepMeta = `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  const id = JSON.stringify(message.id);
  if (message.method === 'initialize') {
    send(`{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"deep-meta","version":"1.0.0"}}}`);
  } else if (message.method === 'tools/list') {
    send(`{"jsonrpc":"2.0","id":${id},"result":{"tools":[{"name":"deep","description":"Deep meta.","inputSchema":{"type":"object"}}]}}`);
  } else if (message.method === 'tools/call') {
    send(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"deep"}],"_meta":{"value":${deepMeta}}}}`);
  } else if (message.id !== undefined) {
    send(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
  }
});
