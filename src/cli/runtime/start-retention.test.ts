import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { openGateway } from './open-gateway.js';
import { startRetention, type RetentionRun } from './start-retention.js';

const DAY_MS = 86_400_000;

describe('startRetention (journal.retentionDays)', () => {
  it('compacts the journal and removes spills and media older than the retention, and the chain still verifies', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-retention-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ journal: { retentionDays: 7 } }));
    const gateway = await openGateway(loadConfig(workspace), { connectServers: false });
    try {
      const longAgo = Date.now() - 30 * DAY_MS;
      for (let index = 0; index < 3; index += 1) await gateway.journal.append({ type: 'old', at: longAgo + index, data: { index } });
      await gateway.journal.append({ type: 'recent', at: Date.now(), data: {} });
      const old = join(gateway.spillDir, 'runs', 'run-old');
      const recent = join(gateway.spillDir, 'runs', 'run-recent');
      for (const run of [old, recent]) {
        mkdirSync(run, { recursive: true });
        writeFileSync(join(run, 'spill.txt'), 'output');
      }
      const past = new Date(longAgo);
      utimesSync(join(old, 'spill.txt'), past, past);
      utimesSync(old, past, past);

      const runs: (RetentionRun | Error)[] = [];
      const stop = startRetention(gateway, (run) => runs.push(run));
      await expect.poll(() => runs.length).toBe(1);
      stop?.();
      // The three old rows, and the journal's first row (`journal-made`), which comes before them.
      expect(runs[0]).toMatchObject({ compactedRows: 4, removed: 1 });
      expect(existsSync(old)).toBe(false);
      expect(existsSync(recent)).toBe(true);
      expect(await gateway.journal.verify()).toMatchObject({ ok: true });
    } finally {
      await gateway.close();
    }
  });

  it('does nothing without retentionDays', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-retention-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({}));
    const gateway = await openGateway(loadConfig(workspace), { connectServers: false });
    try {
      expect(startRetention(gateway, () => undefined)).toBeUndefined();
    } finally {
      await gateway.close();
    }
  });
});
