import { canonicalJson, sha256Hex } from '../core/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * The pinned digest of an upstream definition: SHA-256 of the canonical JSON
 * of everything that steers a model or a policy — name, title, description,
 * input and output schemas, annotations — as the upstream sent them (before
 * any stripping), so any change at all is a different digest.
 */
export function definitionDigest(tool: Tool): Promise<string> {
  return sha256Hex(
    canonicalJson({
      name: tool.name,
      title: tool.title ?? null,
      description: tool.description ?? null,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema ?? null,
      annotations: tool.annotations ?? null,
    }),
  );
}
