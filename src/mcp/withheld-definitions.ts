import { ToolPolicyError, type ToolgateError } from '../core/internal.js';
import type { UpstreamServer } from './create-mcp-capability.js';
import { describeWithheld, type UpstreamEntry } from './discover-server-tools.js';
import type { WithheldDefinition } from './mcp-types.js';

/** Why a withheld upstream tool is refused, and what a person does about it. */
export function withheldDefinitionError(entry: UpstreamEntry): ToolgateError {
  return new ToolPolicyError(entry.name, 'definition_withheld', {
    detail:
      entry.reason === 'unapproved'
        ? 'was withheld: its definition has not been approved yet (approve it in the console or the CLI)'
        : 'was withheld: its definition changed since it was approved (review and re-approve it in the console or the CLI)',
  });
}

/** The withheld entry offered under a governed name, on any server. */
export function findWithheldEntry(servers: Iterable<UpstreamServer>, name: string): UpstreamEntry | undefined {
  for (const server of servers) for (const entry of server.entries.values()) if (entry.name === name && entry.status === 'withheld') return entry;
  return undefined;
}

/** Every withheld definition, sorted by governed name. */
export function listWithheldDefinitions(servers: Iterable<UpstreamServer>): readonly WithheldDefinition[] {
  const list: WithheldDefinition[] = [];
  for (const server of servers) for (const entry of server.entries.values()) if (entry.status === 'withheld') list.push(describeWithheld(entry));
  return list.sort((left, right) => (left.name < right.name ? -1 : 1));
}
