import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { harness, memoryJournal } from './__fixtures__/pipeline-fixtures.js';

/** A tool with no journal tier of its own that reports whether its arguments could be rewritten. */
function frozenProbe(seen: boolean[]) {
  return defineTool({
    name: 'probe',
    description: 'Report whether the arguments are frozen.',
    input: z.object({ note: z.string() }),
    dispatch: (args) => {
      seen.push(Object.isFrozen(args));
      return 'ok';
    },
  });
}

describe('the call features: one answer to "who else sees this call"', () => {
  it('a journal that covers every call records a tool of tier none, so its arguments are frozen before the body runs', async () => {
    const seen: boolean[] = [];
    const journal = { ...memoryJournal(), coverage: 'all' as const };
    const { registry } = harness([frozenProbe(seen)], { journal });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'probe', arguments: { note: 'x' } }, { grantedTools: ['probe'] });
    expect(outcome.ok).toBe(true);
    expect(journal.prepared.map((input) => input.tier)).toEqual(['record']);
    expect(seen).toEqual([true]);
  });

  it('a tiered journal leaves a tool of tier none alone: the plain path neither journals nor freezes', async () => {
    const seen: boolean[] = [];
    const journal = memoryJournal();
    const { registry } = harness([frozenProbe(seen)], { journal });
    const outcome = await registry.dispatch({ callId: 'c1', name: 'probe', arguments: { note: 'x' } }, { grantedTools: ['probe'] });
    expect(outcome.ok).toBe(true);
    expect(journal.prepared).toEqual([]);
    expect(seen).toEqual([false]);
  });
});
