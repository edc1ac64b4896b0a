import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from './is-record.js';
import { MAX_UPSTREAM_DEPTH, nestsDeeperThan } from './nests-deeper-than.js';

/**
 * What is wrong with an upstream's `tools/call` result, in words that quote
 * none of it; undefined when it is well formed. Only what the gateway reads
 * is checked, each field once: `content` (absent means none), each block's
 * type and the fields that type is read by, `isError` and
 * `structuredContent`. Other fields (`_meta`, annotations) are never read.
 * A block of a type MCP does not define is malformed, as it is to the SDK.
 * So is content or a structured value nested deeper than
 * `MAX_UPSTREAM_DEPTH`: the hidden-character scan walks all of it (a block's
 * `_meta` too), and overflowed the stack on 20,000 levels, failing the call
 * with no reason given.
 */
export function findMalformedCallResult(result: unknown): string | undefined {
  if (!isRecord(result)) return 'the result is not an object';
  const { content, isError, structuredContent } = result;
  if (isError !== undefined && typeof isError !== 'boolean') return 'isError is not a boolean';
  if (structuredContent !== undefined && !isRecord(structuredContent)) return 'structuredContent is not an object';
  if (nestsDeeperThan(content, MAX_UPSTREAM_DEPTH) || nestsDeeperThan(structuredContent, MAX_UPSTREAM_DEPTH)) return `it nests deeper than ${MAX_UPSTREAM_DEPTH} levels`;
  if (content === undefined) return undefined;
  if (!Array.isArray(content)) return 'content is not an array';
  // Media are stored only from a success without a structured value (the blocks beside one, or an isError's, reach no one).
  const stored = structuredContent === undefined && isError !== true;
  let media = 0;
  for (const [index, block] of content.entries()) {
    const problem = malformedBlock(block);
    if (problem !== undefined) return `content[${index}] ${problem}`;
    if (stored && isMedia(block as Record<string, unknown>) && (media += 1) > MAX_MEDIA_BLOCKS) return `content holds more than ${MAX_MEDIA_BLOCKS} media blocks`;
  }
  return undefined;
}

/**
 * The most media blocks (images, audio, binary resources) one result may
 * hold. Each is two files in the host's media store and a block sent to the
 * client: 5,000 images of a few bytes took 6.5 s and left 10,000 files
 * behind, and one 10 MiB message holds 150,000 of them.
 */
export const MAX_MEDIA_BLOCKS = 256;

function isMedia(block: Record<string, unknown>): boolean {
  if (block.type === 'image' || block.type === 'audio') return true;
  return block.type === 'resource' && typeof (block.resource as Record<string, unknown>).text !== 'string';
}

/**
 * The part of a well-formed result that goes on, and all the gateway reads
 * and scans: a success with a structured value as that value (the blocks
 * beside it, by convention the same data as text, with `content` empty),
 * else its content blocks (none when absent), with `isError` when given.
 * The result's own `_meta` and any other member are left out: `mcp_call`
 * hands on the whole result it gets, and through it a server's text beside
 * a clean structured value, or in `_meta`, reached the model unscanned,
 * and a `_meta` nested 20,000 levels overflowed the stack. Call only once
 * `findMalformedCallResult` found nothing.
 */
export function asCallToolResult(result: Record<string, unknown>): CallToolResult {
  const { content, structuredContent, isError } = result as Partial<CallToolResult>;
  if (isError === true) return { content: content ?? [], isError };
  if (structuredContent !== undefined) return { content: [], structuredContent, ...(isError === undefined ? {} : { isError }) };
  return { content: content ?? [], ...(isError === undefined ? {} : { isError }) };
}

function malformedBlock(block: unknown): string | undefined {
  if (!isRecord(block)) return 'is not an object';
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? undefined : 'has no text';
    case 'image':
    case 'audio':
      return typeof block.mimeType !== 'string' ? 'has no mimeType' : isBase64(block.data) ? undefined : 'has no base64 data';
    case 'resource':
      return malformedResource(block.resource);
    case 'resource_link':
      return typeof block.uri === 'string' && typeof block.name === 'string' ? undefined : 'has no uri or name';
    default:
      return 'is of no MCP content type';
  }
}

function malformedResource(resource: unknown): string | undefined {
  if (!isRecord(resource) || typeof resource.uri !== 'string') return 'has no resource uri';
  if (resource.mimeType !== undefined && typeof resource.mimeType !== 'string') return 'has a resource mimeType that is not a string';
  if (typeof resource.text === 'string') return undefined;
  return isBase64(resource.blob) ? undefined : 'has a resource with neither text nor base64 blob';
}

/** As lenient as the SDK's own check (`atob`): whitespace and missing padding pass, any other character does not. */
function isBase64(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    atob(value);
    return true;
  } catch {
    return false;
  }
}
