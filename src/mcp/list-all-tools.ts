import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/internal.js';

/** An upstream cannot make a listing loop forever or grow without bound. */
const MAX_PAGES = 100;
const MAX_TOOLS = 10_000;
/**
 * The most text one server's definitions may take, all pages together (as
 * JSON, in UTF-16 code units). Each page is a message of at most the
 * connection's message limit, but a hundred of them are not: pinned,
 * projected and served whole, a listing of a hundred 8 MiB schemas held the
 * gateway at gigabytes and made a `tools/list` line no client would read.
 */
export const MAX_LISTING_TEXT = 8 * 1024 * 1024;

/** Every page of `tools/list`, bounded. */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  let text = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, signal === undefined ? {} : { signal });
    text += JSON.stringify(result.tools).length;
    if (text > MAX_LISTING_TEXT) throw new ConfigurationError('tools/list', `returned more than ${MAX_LISTING_TEXT / 1024 / 1024} MiB of tool definitions`);
    tools.push(...result.tools);
    if (tools.length > MAX_TOOLS) throw new ConfigurationError('tools/list', `returned more than ${MAX_TOOLS} tools`);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new ConfigurationError('tools/list', `did not finish within ${MAX_PAGES} pages`);
}
