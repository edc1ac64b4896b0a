// An upstream MCP server over stdio whose tools take an argument sent as a string of JSON as the value it spells,
// as Python's FastMCP does for an argument whose type is not `str` (models often send objects and lists as JSON
// text). `read_file` reads `options.path`; its schema gives `options` no type, as FastMCP's does for an argument
// typed `Any`. `read_files` reads `paths`, a path or a list of them (`str | list[str]`).
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'json-string', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'read_file', description: 'Read the file options.path.', inputSchema: { type: 'object', properties: { options: { title: 'Options' } } }, annotations: { readOnlyHint: true } },
    {
      name: 'read_files',
      description: 'Read the files in paths.',
      inputSchema: { type: 'object', properties: { paths: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } },
      annotations: { readOnlyHint: true },
    },
  ],
}));

/** The argument as FastMCP hands it on: a string that is JSON of anything but a string or number, parsed. */
const preParsed = (value) => {
  if (typeof value !== 'string') return value;
  try {
    const parsed = JSON.parse(value);
    return typeof parsed === 'string' || typeof parsed === 'number' ? value : parsed;
  } catch {
    return value;
  }
};

server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {};
  const paths = request.params.name === 'read_files' ? [preParsed(args.paths)].flat() : [preParsed(args.options)?.path];
  if (!paths.every((path) => typeof path === 'string')) return { content: [{ type: 'text', text: 'no path' }], isError: true };
  return { content: paths.map((path) => ({ type: 'text', text: readFileSync(path, 'utf8') })) };
});
await server.connect(new StdioServerTransport());
