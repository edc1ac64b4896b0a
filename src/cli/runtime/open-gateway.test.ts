import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import type { ConfirmActionHook, ToolApprovalRequest } from '../../core/internal.js';
import { appendForged, headOf } from '../../journal/sqlite/__fixtures__/forge-row.js';
import { loadConfig } from '../config/load-config.js';
import { openGateway } from './open-gateway.js';

describe('openGateway', () => {
  it('an "always" approval is written as a rule and honoured after a restart without asking', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask' }));
    const config = loadConfig(workspace);
    const prompts: string[] = [];
    const always: ConfirmActionHook = (request) => {
      prompts.push(request.toolName);
      return Promise.resolve({ outcome: 'approve', scope: 'always' });
    };
    const first = await openGateway(config, { prompt: always, connectServers: false });
    try {
      const outcome = await first.registry().dispatch({ callId: 'a', name: 'write_file', arguments: { path: 'notes.md', content: 'one' } }, first.context);
      expect(outcome.ok).toBe(true);
    } finally {
      await first.close();
    }
    expect(prompts).toEqual(['write_file']);
    expect(existsSync(join(workspace, '.toolgate', 'policy.json'))).toBe(true);

    const refuse: ConfirmActionHook = (request) => {
      prompts.push(request.toolName);
      return Promise.resolve({ outcome: 'reject', reason: 'asked again' });
    };
    const second = await openGateway(loadConfig(workspace), { prompt: refuse, connectServers: false });
    try {
      const again = await second.registry().dispatch({ callId: 'b', name: 'write_file', arguments: { path: 'notes.md', content: 'two' } }, second.context);
      expect(again.ok).toBe(true);
      expect(again.receipt.approval).toMatchObject({ outcome: 'approve', how: 'confirm:remembered' });
      expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('two');
      // The rule is for that path only: another write still asks.
      const other = await second.registry().dispatch({ callId: 'c', name: 'write_file', arguments: { path: 'other.md', content: 'x' } }, second.context);
      expect(!other.ok && other.error.code).toBe('DENIED_BY_USER');
    } finally {
      await second.close();
    }
    expect(prompts).toEqual(['write_file', 'write_file']);
  });

  it('refuses to start when a remembered-rules file is corrupt (a reload never drops rules silently)', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
    await openGateway(loadConfig(workspace), { connectServers: false }).then((gateway) => gateway.close());
    writeFileSync(join(workspace, '.toolgate', 'policy.json'), '{ not json');
    await expect(openGateway(loadConfig(workspace), { connectServers: false })).rejects.toThrow(/policy file .* cannot be loaded/);
  });
  it('warns as it starts when the signed journal ends on a row its key did not sign, and refuses every journaled call', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ journal: { sign: true } }));
    writeFileSync(join(workspace, 'notes.md'), 'hello');
    const first = await openGateway(loadConfig(workspace), { connectServers: false });
    expect(first.warnings).toEqual([]);
    expect((await first.registry().dispatch({ callId: 'a', name: 'read_file', arguments: { path: 'notes.md' } }, first.context)).ok).toBe(true);
    await first.close();
    const db = new Database(join(workspace, '.toolgate', 'journal.db'));
    const forged = appendForged(db, 'events', { at: Date.now(), type: 'note', body: '{}' }, headOf(db));
    db.close();
    const second = await openGateway(loadConfig(workspace), { connectServers: false });
    try {
      expect(second.warnings).toEqual([expect.stringContaining(`ends on a row that is not signed with the journal's key (events #${String(forged.seq)})`)]);
      const refused = await second.registry().dispatch({ callId: 'b', name: 'read_file', arguments: { path: 'notes.md' } }, second.context);
      expect(refused.ok).toBe(false);
    } finally {
      await second.close();
    }
  });

  it("keeps the gateway's own files from every tool: configuration (with an upstream's credentials), state and journal", async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'accept-edits', servers: { gh: { command: 'gh-mcp', env: { GH_TOKEN: 'ghp_config_secret' } } } }));
    writeFileSync(join(workspace, 'notes.md'), 'hello');
    const approveAll: ConfirmActionHook = () => Promise.resolve({ outcome: 'approve' });
    const gateway = await openGateway(loadConfig(workspace), { prompt: approveAll, connectServers: false });
    const call = (name: string, args: unknown) => gateway.registry().dispatch({ callId: `${name}-${JSON.stringify(args)}`, name, arguments: args }, gateway.context);
    try {
      expect((await call('read_file', { path: 'notes.md' })).ok).toBe(true);
      for (const target of ['toolgate.config.json', '.toolgate/journal.db', '.toolgate/policy.json', './.toolgate/../toolgate.config.json']) {
        const read = await call('read_file', { path: target });
        expect(read.ok, target).toBe(false);
        expect(JSON.stringify(read.content)).not.toContain('ghp_config_secret');
      }
      // Even an approved write cannot reach the remembered rules.
      const write = await call('write_file', { path: '.toolgate/policy.json', content: '{"rules":[]}' });
      expect(write.ok).toBe(false);
      const listing = await call('list_directory', { path: '.' });
      const entries = JSON.stringify(listing.ok ? listing.value : listing.error.code);
      expect(entries).toContain('notes.md');
      expect(entries).not.toContain('toolgate.config.json');
      expect(entries).not.toContain('.toolgate');
    } finally {
      await gateway.close();
    }
  });

  it("hands the host the configured protectedPaths: the host refuses them unapproved, resolves a link into them as protected, and lists none", async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'accept-edits', policy: { protectedPaths: ['secrets/'] } }));
    mkdirSync(join(workspace, 'secrets'));
    writeFileSync(join(workspace, 'secrets', 'token.txt'), 'sk-token');
    symlinkSync('secrets', join(workspace, 'notes'));
    const prompts: ToolApprovalRequest[] = [];
    const reject: ConfirmActionHook = (request) => {
      prompts.push(request);
      return Promise.resolve({ outcome: 'reject', reason: 'no' });
    };
    const gateway = await openGateway(loadConfig(workspace), { prompt: reject, connectServers: false });
    try {
      await expect(gateway.host.fs.readFile('secrets/token.txt')).rejects.toMatchObject({ reason: 'protected_path' });
      expect(gateway.host.resolve({ tool: 'write_file', access: 'write', paths: ['notes/token.txt'] }).files[0]).toMatchObject({ real: 'secrets/token.txt', protected: true, linkTraversal: true });
      const write = await gateway.registry().dispatch({ callId: 'w', name: 'write_file', arguments: { path: 'notes/token.txt', content: 'pwned' } }, gateway.context);
      expect(!write.ok && write.error.code).toBe('DENIED_BY_USER');
      expect(prompts.map((request) => request.resolved?.files[0]?.real)).toEqual(['secrets/token.txt']);
      const listing = await gateway.registry().dispatch({ callId: 'l', name: 'list_directory', arguments: { path: '.', depth: 3 } }, gateway.context);
      expect(JSON.stringify(listing.ok ? listing.value : listing.error.code)).not.toContain('token.txt');
    } finally {
      await gateway.close();
    }
    expect(readFileSync(join(workspace, 'secrets', 'token.txt'), 'utf8')).toBe('sk-token');
  });

  it('close() closes the host with the journal and the upstreams, and leaves no handle behind', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'toolgate-gateway-'));
    writeFileSync(join(workspace, 'toolgate.config.json'), JSON.stringify({ scope: 'workspace-write', mode: 'ask' }));
    const before = process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap').length;
    const gateway = await openGateway(loadConfig(workspace), { connectServers: false });
    const closed = vi.spyOn(gateway.host, 'close');
    await gateway.close();
    expect(closed).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap').length).toBeLessThanOrEqual(before);
  });
});
