import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/internal.js';

/** An upstream cannot make a listing loop forever or grow without bound. */
const MAX_PAGES = 100;
const MAX_TOOLS = 10_000;

/** Every page of `tools/list`, bounded. */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, signal === undefined ? {} : { signal });
    tools.push(...result.tools);
    if (tools.length > MAX_TOOLS) throw new ConfigurationError('tools/list', `returned more than ${MAX_TOOLS} tools`);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ConfigurationError('tools/list', `did not finish within ${MAX_PAGES} pages`);
}
