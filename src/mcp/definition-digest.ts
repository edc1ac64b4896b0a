import { canonicalJson, sha256Hex } from '../core/internal.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpPinnedDefinition } from './pin-store.js';

/**
 * The pinned digest of an upstream definition: SHA-256 of the canonical JSON
 * of everything that steers a model or a policy — name, title, description,
 * input and output schemas, annotations — as the upstream sent them (before
 * any stripping), so any change at all is a different digest.
 */
export function definitionDigest(tool: { readonly name: string } & McpPinnedDefinition): Promise<string> {
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

/** What a pin keeps of a definition: exactly what its digest covers, the name aside. */
export function pinnedDefinition(tool: Tool): McpPinnedDefinition {
  return {
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

/** The pin's definition when it is the one its digest approved; a definition edited in the pin file is not shown as approved. */
export async function approvedDefinition(tool: string, pin: { readonly digest: string; readonly definition?: McpPinnedDefinition }): Promise<McpPinnedDefinition | undefined> {
  if (pin.definition === undefined) return undefined;
  return (await definitionDigest({ ...pin.definition, name: tool })) === pin.digest ? pin.definition : undefined;
}
