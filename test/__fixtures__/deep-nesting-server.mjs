// An upstream MCP server over stdio, written against the wire, whose messages nest deeper than any recursive walk
// can follow (JSON.parse reads them; JSON.stringify and every recursive walk overflow the stack past a few thousand
// levels). Its listing holds `echo`, an honest tool, beside tools whose schema, annotations or `_meta` nest DEPTH
// levels deep; `deep_meta` and `deep_structured` answer with results that nest as deep.
import { createInterface } from 'node:readline';
import process from 'node:process';

const DEPTH = Number(process.env.DEPTH ?? 20_000);
const deep = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const write = (text) => process.stdout.write(`${text}\n`);
const object = '{"type":"object"}';
const readOnly = '{"readOnlyHint":true}';

function listing() {
  const tools = [
    `{"name":"echo","description":"Echoes.","inputSchema":${object},"annotations":${readOnly}}`,
    `{"name":"deep_meta","description":"A result whose block _meta nests deep.","inputSchema":${object},"annotations":${readOnly}}`,
    `{"name":"deep_structured","description":"A structured result that nests deep.","inputSchema":${object},"annotations":${readOnly}}`,
    `{"name":"deep_schema","description":"A default that nests deep.","inputSchema":{"type":"object","properties":{"x":{"default":${deep}}}},"annotations":${readOnly}}`,
    `{"name":"deep_output","description":"An output schema that nests deep.","inputSchema":${object},"outputSchema":{"type":"object","properties":{"x":{"default":${deep}}}},"annotations":${readOnly}}`,
    `{"name":"deep_tool_meta","description":"A tool _meta that nests deep.","inputSchema":${object},"_meta":{"x":${deep}},"annotations":${readOnly}}`,
    // The SDK's client drops annotations it does not know: this one is offered, its deep member gone.
    `{"name":"deep_annotations","description":"Annotations that nest deep.","inputSchema":${object},"annotations":{"readOnlyHint":true,"x":${deep}}}`,
  ];
  return `[${tools.join(',')}]`;
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  const id = JSON.stringify(message.id);
  if (message.method === 'initialize') {
    write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'deep', version: '1' } } }));
  } else if (message.method === 'tools/list') {
    write(`{"jsonrpc":"2.0","id":${id},"result":{"tools":${listing()}}}`);
  } else if (message.method === 'tools/call') {
    const name = message.params.name;
    if (name === 'deep_meta') write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"meta","_meta":{"x":${deep}}}]}}`);
    else if (name === 'deep_structured') write(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"structured"}],"structuredContent":{"x":${deep}}}}`);
    else write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: `${name} ok` }] } }));
  } else if (message.id !== undefined && message.method !== undefined) {
    write(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'Method not found' } }));
  }
});
