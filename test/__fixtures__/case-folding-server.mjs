// An upstream MCP server over stdio that reads its tool's arguments as Go's encoding/json decodes them into a
// struct: a member name matches a field up to case (Unicode simple folding: "PATH", "Path", "paTh", "ſ" for "s"),
// and of several members that match, the last one wins. Servers written in Go with typed arguments read them so.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const fold = (name) => [...name].map((character) => character.toLowerCase().toUpperCase()).join('');

/** The member a Go struct field named `field` takes: the last one whose name matches it up to case. */
const member = (object, field) => {
  let value;
  for (const [key, entry] of Object.entries(object ?? {})) if (fold(key) === fold(field)) value = entry;
  return value;
};

const server = new Server({ name: 'case-folding', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'read_file', description: 'Read the file options.path.', inputSchema: { type: 'object', properties: { options: { type: 'object' } } }, annotations: { readOnlyHint: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const path = member(member(request.params.arguments, 'options'), 'path');
  if (typeof path !== 'string') return { content: [{ type: 'text', text: 'no path' }], isError: true };
  return { content: [{ type: 'text', text: readFileSync(path, 'utf8') }] };
});
await server.connect(new StdioServerTransport());
