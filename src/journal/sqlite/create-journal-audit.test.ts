import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, defineTool, withAttachments, type ToolPolicy } from '../../core/internal.js';
import { createJournalAudit } from './create-journal-audit.js';
import { createSqliteJournal } from './create-sqlite-journal.js';

const allowAll: ToolPolicy = { version: 1, decideIdentity: () => ({ kind: 'allow', matched: [] }), decideArguments: () => ({ kind: 'allow', matched: [] }) };

describe('createJournalAudit', () => {
  it('lists settled and refused receipts with chain positions, filtered', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'toolgate-audit-')), 'journal.db');
    const journal = createSqliteJournal(path, { recordAll: true });
    const echo = defineTool({ name: 'echo', description: 'Echo', input: z.object({ text: z.string() }), dispatch: ({ text }) => text });
    const registry = createToolRegistry({ tools: [echo], journal, policy: allowAll });
    for (let index = 0; index < 5; index += 1) {
      await registry.dispatch({ callId: `c${index}`, name: 'echo', arguments: { text: `hello ${index}` } }, { grantedTools: ['echo'], agent: index % 2 === 0 ? 'even' : 'odd' });
    }
    await registry.dispatch({ callId: 'bad', name: 'echo', arguments: { text: 42 } }, { grantedTools: ['echo'] });
    const audit = createJournalAudit(path);
    try {
      expect(audit.count()).toBe(6);
      const all = audit.list();
      expect(all.map((entry) => entry.receipt.callId)).toEqual(['bad', 'c4', 'c3', 'c2', 'c1', 'c0']);
      expect(all[0]?.receipt.status).toBe('error');
      expect(all.every((entry) => entry.chain.hash.length === 64)).toBe(true);
      expect(audit.list({ agent: 'even' }).map((entry) => entry.receipt.callId)).toEqual(['c4', 'c2', 'c0']);
      expect(audit.list({ status: 'error' })).toHaveLength(1);
      const oldest = audit.list({ oldestFirst: true, limit: 2 });
      expect(oldest.map((entry) => entry.receipt.callId)).toEqual(['c0', 'c1']);
      expect(audit.list({ afterSeq: oldest[1]?.chain.position ?? 0, oldestFirst: true })[0]?.receipt.callId).toBe('c2');
      const one = audit.get(all[1]?.receipt.invocationId ?? '');
      expect(one?.receipt.callId).toBe('c4');
      expect(audit.get('no-such-id')).toBeUndefined();
    } finally {
      audit.close();
      journal.close();
    }
  });

  it('pages before a chain position, filters by run and searches the target, arguments and summary', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'toolgate-audit-')), 'journal.db');
    const journal = createSqliteJournal(path, { recordAll: true });
    const echo = defineTool({ name: 'echo', description: 'Echo', input: z.object({ text: z.string() }), dispatch: ({ text }) => text });
    const registry = createToolRegistry({ tools: [echo], journal, policy: allowAll });
    for (let index = 0; index < 6; index += 1) {
      await registry.dispatch({ callId: `c${index}`, name: 'echo', arguments: { text: index === 4 ? 'Needle in notes' : `hay ${index}` } }, { grantedTools: ['echo'], runId: index < 3 ? 'run-a' : 'run-b' });
    }
    // Record-tier receipts commit in the next batch; another connection sees them once it has.
    journal.flush();
    const audit = createJournalAudit(path);
    try {
      const first = audit.list({ limit: 2 });
      expect(first.map((entry) => [entry.receipt.callId, entry.runId])).toEqual([['c5', 'run-b'], ['c4', 'run-b']]);
      const next = audit.list({ limit: 2, beforeSeq: first[1]?.chain.position ?? 0 });
      expect(next.map((entry) => entry.receipt.callId)).toEqual(['c3', 'c2']);
      expect(audit.list({ runId: 'run-a' }).map((entry) => entry.receipt.callId)).toEqual(['c2', 'c1', 'c0']);
      expect(audit.list({ search: 'needle' }).map((entry) => entry.receipt.callId)).toEqual(['c4']);
      // A field name is not content: searching for it finds nothing.
      expect(audit.list({ search: 'outputSummary' })).toEqual([]);
      expect(audit.list({ search: '' })).toHaveLength(6);
    } finally {
      audit.close();
      journal.close();
    }
  });

  it('finds the attachment a receipt lists by its handle, and nothing for a handle no receipt lists', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'toolgate-audit-')), 'journal.db');
    const journal = createSqliteJournal(path, { recordAll: true });
    const shot = { handle: `media:sha256:${'a'.repeat(64)}`, mediaType: 'image/png', bytes: 81 };
    const other = `media:sha256:${'b'.repeat(64)}`;
    const screenshot = defineTool({ name: 'screenshot', description: 'A screenshot', input: z.object({}), dispatch: () => withAttachments('the screen', [shot]) });
    // A handle in the arguments or the text is not an attachment.
    const echo = defineTool({ name: 'echo', description: 'Echo', input: z.object({ text: z.string() }), dispatch: ({ text }) => text });
    const registry = createToolRegistry({ tools: [screenshot, echo], journal, policy: allowAll });
    await registry.dispatch({ callId: 's', name: 'screenshot', arguments: {} }, { grantedTools: ['screenshot'] });
    await registry.dispatch({ callId: 'e', name: 'echo', arguments: { text: other } }, { grantedTools: ['echo'] });
    journal.flush();
    const audit = createJournalAudit(path);
    try {
      expect(audit.attachment(shot.handle)).toEqual(shot);
      expect(audit.attachment(other)).toBeUndefined();
      expect(audit.attachment(shot.handle.toUpperCase())).toBeUndefined();
      expect(audit.attachment('')).toBeUndefined();
    } finally {
      audit.close();
      journal.close();
    }
  });
});
