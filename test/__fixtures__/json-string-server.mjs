// An upstream MCP server over stdio whose tool reads `options.path`, and takes options sent as a string of JSON
// as the object it spells, as Python's FastMCP does for an argument whose type is not `str` (models often send
// objects as JSON text). Its schema gives `options` no type, as FastMCP's does for an argument typed `Any`.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'json-string', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'read_file', description: 'Read the file options.path.', inputSchema: { type: 'object', properties: { options: { title: 'Options' } } }, annotations: { readOnlyHint: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  let options = request.params.arguments?.options;
  if (typeof options === 'string') {
    try {
      options = JSON.parse(options);
    } catch {
      // Not JSON: kept as the string it is.
    }
  }
  const path = options?.path;
  if (typeof path !== 'string') return { content: [{ type: 'text', text: 'no path' }], isError: true };
  return { content: [{ type: 'text', text: readFileSync(path, 'utf8') }] };
});
await server.connect(new StdioServerTransport());
