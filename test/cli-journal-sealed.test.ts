// Sealed commits through `toolgate serve` with a real MCP client: a burst of journaled refusals is sealed between
// Ed25519 signatures, the gateway signs the sealed rows over as it stops, `toolgate audit verify` checks the seals with
// the key, and `journal.signEveryMs: 0` signs every commit.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { CLI, runCli } from './support/spawn-cli.js';

interface Row {
  readonly type: string | null;
  readonly signature: string | null;
}

/** Serve the workspace over stdio, make `refusals` writes the default read-only scope refuses (each journaled), stop. */
async function serveAndRefuse(journal: object, refusals: number): Promise<{ workspace: string; rows: Row[] }> {
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-sealed-'));
  writeFileSync(join(workspace, 'notes.md'), 'hello\n');
  writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ journal: { sign: true, ...journal }, console: { enabled: false } }));
  const client = new Client({ name: 'sealed', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--stdio'], cwd: workspace, stderr: 'ignore' }));
  try {
    for (let index = 0; index < refusals; index += 1) {
      expect((await client.callTool({ name: 'write_file', arguments: { path: 'notes.md', content: `changed ${index}` } })).isError).toBe(true);
    }
  } finally {
    await client.close();
  }
  const db = new Database(join(workspace, '.toolgate', 'journal.db'), { readonly: true });
  try {
    const rows = db
      .prepare<[], Row>(`SELECT seq, type, signature FROM events UNION ALL SELECT seq, NULL, signature FROM receipts UNION ALL SELECT seq, NULL, signature FROM claims ORDER BY seq`)
      .all();
    return { workspace, rows };
  } finally {
    db.close();
  }
}

const sealed = (row: Row | undefined): boolean => row?.signature?.startsWith('hmac-sha256:') === true;

describe('a signed journal through toolgate serve', () => {
  it('seals the commits between signatures, signs them over as the gateway stops, and audit verify checks the seals', async () => {
    const { workspace, rows } = await serveAndRefuse({ signEveryMs: 60_000 }, 4);
    expect(rows.some(sealed)).toBe(true);
    // Stopped, the gateway left its last row signed: an auditor with the public key alone checks every row.
    expect(rows.at(-1)?.signature).toEqual(expect.any(String));
    expect(sealed(rows.at(-1))).toBe(false);
    const verified = await runCli(['audit', 'verify', '--no-anchor'], workspace);
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/chain verified: \d+ rows/);
  });

  it('journal.signEveryMs 0 signs every commit', async () => {
    const { rows } = await serveAndRefuse({ signEveryMs: 0 }, 4);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some(sealed)).toBe(false);
    expect(rows.filter((row) => row.signature !== null).length).toBeGreaterThanOrEqual(4);
  });

  it('refuses a journal.signEveryMs that is not a whole number of milliseconds up to a minute', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-sealed-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ journal: { sign: true, signEveryMs: -1 } }));
    const refused = await runCli(['audit', 'verify'], workspace);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('signEveryMs');
  });
});
