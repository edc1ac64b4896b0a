import { readdirSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model against the gateway's disk, through the journal: every call's result value is recorded for
// replay up to `journal.maxValueBytes` (1 MiB) each, and nothing bounds the sum. Reads ask no one under the
// embedded default, so reading one file just under 1 MiB again and again grows `.toolgate/journal.db` (and its
// WAL) by about that much per call, at the speed of the calls: 48 reads of the same 1 MB file left about 90 MB,
// for good (the journal is the tamper-evident record; only `journal.retentionDays` compacts it). A value is now
// kept up to 64 KiB, and a long value or content is stored once however often it is recorded.

const open = closeAfterEach();
const MIB = 1024 * 1024;

describe('attack: a read-only model fills the disk through the journal', () => {
  it('48 reads of the same 1 MB file do not each add the file to the journal', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const gateway = open.gateway(await serveGateway({ console: { enabled: false } }, { files: { 'big.log': line.repeat(10_000) } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    for (let round = 0; round < 6; round += 1) {
      await Promise.all(Array.from({ length: 8 }, () => client.callTool({ name: 'read_file', arguments: { path: 'big.log' } })));
    }
    const state = join(gateway.workspace, '.toolgate');
    const journal = readdirSync(state)
      .filter((name) => name.startsWith('journal.db'))
      .reduce((sum, name) => sum + statSync(join(state, name)).size, 0);
    expect(journal).toBeLessThan(16 * MIB);
  }, 30_000);

  it('96 reads of the same 60 KB file, whose value the journal keeps, store the file and its preview once', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const gateway = open.gateway(await serveGateway({ console: { enabled: false } }, { files: { 'mid.log': line.repeat(600) } }));
    const { client } = await connectClient(gateway.mcpUrl, 'attacker', undefined, gateway.auth);
    open.client(client);
    for (let round = 0; round < 12; round += 1) {
      const results = await Promise.all(Array.from({ length: 8 }, () => client.callTool({ name: 'read_file', arguments: { path: 'mid.log' } })));
      expect(results.every((result) => result.isError !== true)).toBe(true);
    }
    // What the journal holds, its pages in the file and in the write-ahead log together (the log itself is rewritten
    // from its start after each checkpoint, so its size on disk says how much was written, not kept).
    const db = new Database(join(gateway.workspace, '.toolgate', 'journal.db'), { readonly: true });
    const journal = (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);
    db.close();
    // Each recorded whole, the value and the 32 KiB preview came to 9.2 MB.
    expect(journal).toBeLessThan(2 * MIB);
  }, 30_000);
});
