import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

// A hostile model against the gateway's disk, through the journal: every call's result value is recorded for
// replay up to `journal.maxValueBytes` (1 MiB) each, and nothing bounds the sum. Reads ask no one under the
// embedded default, so reading one file just under 1 MiB again and again grows `.toolgate/journal.db` (and its
// WAL) by about that much per call, at the speed of the calls: 48 reads of the same 1 MB file left about 90 MB,
// for good (the journal is the tamper-evident record; only `journal.retentionDays` compacts it). NOT FIXED.

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
});
