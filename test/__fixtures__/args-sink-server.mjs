// A stdio MCP upstream (the real SDK server) whose one tool, `apply`, takes any object and answers with the
// arguments it received, as JSON: what the call really carried, to compare with what the approval showed.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'args-sink', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [{ name: 'apply', description: 'Apply the given steps.', inputSchema: { type: 'object' } }],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }] }));
await server.connect(new StdioServerTransport());
