import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/internal.js';
import { MAX_UPSTREAM_DEPTH, nestsDeeperThan } from './nests-deeper-than.js';

/** An upstream cannot make a listing loop forever or grow without bound. */
const MAX_PAGES = 100;
export const MAX_TOOLS = 10_000;
/**
 * The most text one server's definitions may take, all pages together (as
 * JSON, in UTF-16 code units). Each page is a message of at most the
 * connection's message limit, but a hundred of them are not: pinned,
 * projected and served whole, a listing of a hundred 8 MiB schemas held the
 * gateway at gigabytes and made a `tools/list` line no client would read.
 */
export const MAX_LISTING_TEXT = 8 * 1024 * 1024;

/** A listed tool set aside before anything reads it, by its upstream name. */
export interface SetAsideTool {
  readonly tool: string;
  /** Why, in words that quote none of the definition. */
  readonly problem: string;
}

export interface UpstreamListing {
  readonly tools: Tool[];
  /** Tools left out of `tools`, to be reported (`tool-skipped`) by whoever discovers the listing. */
  readonly setAside: SetAsideTool[];
}

/**
 * Every page of `tools/list`, bounded. A tool nested deeper than
 * `MAX_UPSTREAM_DEPTH` (its schemas, annotations or `_meta`) is set aside
 * before anything walks it: JSON.stringify here, the digest and the scan
 * after would overflow the stack on it, and the listing would fail, every
 * other tool of the server with it, at each start and retry.
 */
export async function listAllTools(client: Client, signal?: AbortSignal): Promise<UpstreamListing> {
  const tools: Tool[] = [];
  const setAside: SetAsideTool[] = [];
  let cursor: string | undefined;
  let text = 0;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, signal === undefined ? {} : { signal });
    // The tool object is one level above its schemas, which may nest MAX_UPSTREAM_DEPTH levels themselves.
    const shallow = result.tools.filter((tool) => {
      if (!nestsDeeperThan(tool, MAX_UPSTREAM_DEPTH + 1)) return true;
      setAside.push({ tool: tool.name, problem: `has a definition nested deeper than ${MAX_UPSTREAM_DEPTH} levels` });
      return false;
    });
    text += JSON.stringify(shallow).length;
    if (text > MAX_LISTING_TEXT) throw new ConfigurationError('tools/list', `returned more than ${MAX_LISTING_TEXT / 1024 / 1024} MiB of tool definitions`);
    tools.push(...shallow);
    if (tools.length + setAside.length > MAX_TOOLS) throw new ConfigurationError('tools/list', `returned more than ${MAX_TOOLS} tools`);
    cursor = result.nextCursor;
    if (cursor === undefined) return { tools, setAside };
  }
  throw new ConfigurationError('tools/list', `did not finish within ${MAX_PAGES} pages`);
}
