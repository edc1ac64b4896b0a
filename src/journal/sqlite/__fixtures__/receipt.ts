import type { ToolReceipt } from '../../../core/internal.js';

/** A receipt of a small write, numbered so each is distinct: what the journal tests settle. */
export function receipt(index: number): ToolReceipt {
  return {
    invocationId: `i${index}`,
    callId: `c${index}`,
    tool: 'write_note',
    version: undefined,
    agent: 'agent-a',
    parent: undefined,
    status: 'ok',
    code: 'OK',
    outputSummary: `wrote note ${index}`,
    affectedEntities: [`notes/${index}.md`],
    inputDigest: `in${index}`,
    actionDigest: `act${index}`,
    policy: { decision: 'allow', version: 1, rules: [] },
    approval: { outcome: 'not-required' },
    effect: 'write',
    risk: 'medium',
    tier: 'T2',
    startedAt: 1_700_000_000_000 + index,
    durationMs: 3,
    arguments: { path: `notes/${index}.md` },
  };
}
