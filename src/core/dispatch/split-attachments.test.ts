import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.js';
import { unwrapUntrusted } from '../untrusted/untrusted.js';
import { harness, memoryJournal } from './__fixtures__/pipeline-fixtures.js';
import { withAttachments } from './split-attachments.js';

describe('stage 13: media attachments split off the result', () => {
  it('stage 13: splits media attachments (untrusted handles); a journaled call records content-addressed handles only', async () => {
    const handle = { handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 10 };
    const media = defineTool({ name: 'shot', description: 'Screenshot.', input: z.object({}), dispatch: () => withAttachments({ taken: true }, [handle]) });
    const { registry } = harness([media]);
    const outcome = await registry.dispatch({ callId: 'c', name: 'shot', arguments: {} }, { grantedTools: ['shot'] });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.value).toEqual({ taken: true });
    expect(outcome.attachments?.map((entry) => unwrapUntrusted(entry))).toEqual([handle]);

    const journal = memoryJournal();
    const journaled = harness([{ ...media, journal: 'record' as const }], { journal });
    const recorded = await journaled.registry.dispatch({ callId: 'c', name: 'shot', arguments: {} }, { grantedTools: ['shot'] });
    expect(recorded.ok && recorded.attachments?.map((entry) => unwrapUntrusted(entry))).toEqual([handle]);
    expect(recorded.receipt.attachments).toEqual([handle]);
    expect(journal.settled[0]?.input).toMatchObject({ ok: true, attachments: [handle], receipt: { attachments: [handle] } });

    // A call that fails after its media were split off records none.
    const invalid = defineTool({ name: 'shot', description: 'Screenshot.', input: z.object({}), output: z.object({ taken: z.literal(false) }), journal: 'record', dispatch: () => withAttachments({ taken: true }, [handle]) as never });
    const failing = memoryJournal();
    const failed = await harness([invalid], { journal: failing }).registry.dispatch({ callId: 'c', name: 'shot', arguments: {} }, { grantedTools: ['shot'] });
    expect(failed.ok ? 'OK' : failed.error.code).toBe('OUTPUT_INVALID');
    expect(failed.receipt.attachments).toBeUndefined();
    expect(failing.settled[0]?.input.attachments).toBeUndefined();

    // A journal records what a replay can check against the bytes: no other kind of handle, type or size.
    for (const forged of [{ ...handle, handle: 'media:sha256:abc' }, { ...handle, handle: 'media:fake:10' }, { ...handle, mediaType: 'image/png; a=b' }, { ...handle, bytes: -1 }, { ...handle, bytes: '10' }]) {
      const tool = defineTool({ name: 'shot', description: 'Screenshot.', input: z.object({}), journal: 'record', dispatch: () => withAttachments({ taken: true }, [forged as typeof handle]) });
      const refused = await harness([tool], { journal: memoryJournal() }).registry.dispatch({ callId: 'c', name: 'shot', arguments: {} }, { grantedTools: ['shot'] });
      expect(refused.ok ? 'OK' : refused.error.code, JSON.stringify(forged)).toBe('OUTPUT_INVALID');
    }
  });
});
