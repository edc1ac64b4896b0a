// An upstream MCP server over stdio whose tool copies a nested options object with Object.assign before it
// reads `options.path`, as many JavaScript servers merge options with their defaults. A copy made that way
// takes an own "__proto__" member of the options as the copy's prototype, and reads a path the arguments
// never held as their own.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'merging', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'read_config', description: 'Read the file options.path.', inputSchema: { type: 'object', properties: { options: { type: 'object' } } }, annotations: { readOnlyHint: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const options = Object.assign({ encoding: 'utf8' }, request.params.arguments?.options);
  if (typeof options.path !== 'string') return { content: [{ type: 'text', text: 'no path' }], isError: true };
  return { content: [{ type: 'text', text: readFileSync(options.path, options.encoding) }] };
});
await server.connect(new StdioServerTransport());
