// The console in Chromium over a signed journal to which a writer without the key appended a row: the header's
// chain chip names the row, and the gateway journals (and so runs) nothing more until an operator acts.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { appendForged, headOf } from '../src/journal/sqlite/__fixtures__/forge-row.js';
import { useChromium } from './support/chromium.js';
import { closeAfterEach, connectClient, serveGateway } from './support/serve-gateway.js';

const browser = useChromium();
const opened = closeAfterEach();
const text = (result: object): string => JSON.stringify((result as { content?: unknown }).content);

describe('the console over a signed journal with a forged row', () => {
  it('shows the chain broken at the forged row, and the next call is refused, not run', async () => {
    const gateway = opened.gateway(await serveGateway({ scope: 'workspace-write', mode: 'auto', journal: { sign: true } }, { files: { 'notes.md': 'hello\n' } }));
    const mcp = opened.client((await connectClient(gateway.mcpUrl, 'agent', undefined, gateway.auth)).client);
    expect(text(await mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } }))).toContain('hello');

    const page = await browser().newPage();
    await page.goto(String(gateway.consoleUrl));
    await expect.poll(() => page.locator('#chain').textContent()).toMatch(/^chain verified · [1-9]\d* rows$/);

    const db = new Database(join(gateway.workspace, '.toolgate', 'journal.db'));
    const forged = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}', key_id: null }, headOf(db));
    db.close();

    const refused = await mcp.callTool({ name: 'read_file', arguments: { path: 'notes.md' } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('the journal could not record the call');
    await page.reload();
    await expect.poll(() => page.locator('#chain').textContent()).toBe(`chain broken at events #${String(forged.seq)}`);
    await expect.poll(() => page.locator('#chain').getAttribute('class')).toBe('chip bad');
  }, 120_000);
});
