// A stand-in for mcp-server-fetch that really fetches: its `fetch` tool GETs the URL it is given and answers
// with the body, as the Python server does (certificates unchecked, like a careless fetcher). Started with
// `mcp-server-fetch` among its arguments, so toolgate recognises it and judges its `url` target.
// `--resolve NAME=ADDRESS` answers its own lookups of NAME with ADDRESS, as a resolver the gateway does not share
// would (a container's DNS, or an attacker's name server that answers the fetcher and fails the gateway).
import { lookup as systemLookup } from 'node:dns';
import { get } from 'node:https';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const resolveFlag = process.argv.indexOf('--resolve');
const [ownName, ownAddress] = resolveFlag < 0 ? [] : process.argv[resolveFlag + 1].split('=');
const lookup = (hostname, options, callback) =>
  hostname === ownName ? (options.all ? callback(null, [{ address: ownAddress, family: 4 }]) : callback(null, ownAddress, 4)) : systemLookup(hostname, options, callback);

const fetchText = (url) =>
  new Promise((resolve, reject) => {
    get(url, { rejectUnauthorized: false, lookup }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(body));
    }).on('error', reject);
  });

const server = new McpServer({ name: 'mcp-server-fetch', version: '1.0.0' });
server.registerTool('fetch', { description: 'Fetches a URL from the internet.', inputSchema: { url: z.string() }, annotations: { readOnlyHint: true, openWorldHint: true } }, async ({ url }) => {
  try {
    return { content: [{ type: 'text', text: await fetchText(url) }] };
  } catch (error) {
    return { content: [{ type: 'text', text: `fetch failed: ${error.message}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
