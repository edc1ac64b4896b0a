import { describe, expect, it } from 'vitest';
import type { UpstreamServer } from './create-mcp-capability.js';
import type { UpstreamEntry } from './discover-server-tools.js';
import { findWithheldEntry, listWithheldDefinitions, withheldDefinitionError } from './withheld-definitions.js';

const entry = (name: string, status: 'offered' | 'withheld', reason?: 'unapproved' | 'changed') =>
  ({ server: 'up', tool: { name, description: 'd', inputSchema: { type: 'object' } }, name: `mcp_up_${name}`, digest: 'x', status, reason, pinnedDigest: undefined, approved: undefined, definition: undefined }) as UpstreamEntry;
const servers = [{ config: { name: 'up' }, entries: new Map([entry('b', 'withheld', 'changed'), entry('a', 'withheld', 'unapproved'), entry('c', 'offered')].map((item) => [item.tool.name, item])) }] as unknown as UpstreamServer[];

describe('withheld definitions', () => {
  it('finds only a withheld entry by its governed name', () => {
    expect(findWithheldEntry(servers, 'mcp_up_a')?.tool.name).toBe('a');
    expect(findWithheldEntry(servers, 'mcp_up_c')).toBeUndefined();
  });

  it('lists the withheld ones sorted by name', () => {
    expect(listWithheldDefinitions(servers).map((item) => [item.name, item.reason])).toEqual([
      ['mcp_up_a', 'unapproved'],
      ['mcp_up_b', 'changed'],
    ]);
  });

  it('says whether the definition awaits a first approval or changed since it was approved', () => {
    expect(withheldDefinitionError(entry('a', 'withheld', 'unapproved')).message).toMatch(/has not been approved yet/);
    expect(withheldDefinitionError(entry('b', 'withheld', 'changed')).message).toMatch(/changed since it was approved/);
  });
});
