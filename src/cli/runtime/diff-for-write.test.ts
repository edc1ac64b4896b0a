import { describe, expect, it } from 'vitest';
import { approvalRequest } from '../../core/policy/__fixtures__/approval-request.js';
import { MAX_VIEW_BODY, type FsCapability, type ToolApprovalRequest } from '../../core/internal.js';
import { diffForWrite } from './diff-for-write.js';

const secretFile = ['region = "eu-west-1"', 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', 'GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"', ''].join('\n');

function request(body: string): ToolApprovalRequest {
  return approvalRequest({
    toolName: 'write_file',
    action: 'fs_write',
    target: { path: 'config.toml' },
    decision: { kind: 'ask', reason: 'rule', matched: [] },
    why: 'rule',
    view: { title: 'Write config.toml', body },
  });
}

describe('diffForWrite', () => {
  it('never shows a secret of the file as it is, on the lines the write removes or keeps', async () => {
    const fs = { readFile: () => Promise.resolve({ content: secretFile }) } as unknown as FsCapability;
    const result = await diffForWrite(fs, request('region = "us-east-1"\n'));
    expect(result?.diff).toContain('-region = "eu-west-1"');
    expect(result?.diff).toContain('+region = "us-east-1"');
    expect(result?.diff).not.toContain('wJalrXUtnFEMI');
    expect(result?.diff).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('builds no diff of a view the engine cut: it would pass for the whole write', async () => {
    const fs = { readFile: () => Promise.resolve({ content: 'echo build\n' }) } as unknown as FsCapability;
    expect(await diffForWrite(fs, request(`${'echo build\n'.repeat(1000)}`))).toMatchObject({ diff: expect.stringContaining('+echo build') as unknown });
    const cut = `${'x'.repeat(MAX_VIEW_BODY)}\n… [36 more characters not shown]`;
    expect(await diffForWrite(fs, request(cut))).toBeUndefined();
    // Cut, then shortened by masking below the length a card shows: still a cut view.
    expect(await diffForWrite(fs, request(`${'x'.repeat(MAX_VIEW_BODY - 100)}\n… [36 more characters not shown]`))).toBeUndefined();
  });

  it('shows a line holding a masked value as written again, never as unchanged: the value there may be another', async () => {
    const current = `region = eu\ntoken = ghp_${'a'.repeat(36)}\n`;
    const fs = { readFile: () => Promise.resolve({ content: current }) } as unknown as FsCapability;
    // The view of a write that changes the token alone: the same text as the file's, once both are masked.
    const result = await diffForWrite(fs, request('region = eu\ntoken = [redacted]\n'));
    expect(result?.diff).toContain('-token = [redacted]');
    expect(result?.diff).toContain('+token = [redacted]');
    expect(result?.diff).toContain(' region = eu');
    expect(result?.diff).not.toContain('-region');
    expect(result?.diff).not.toContain('ghp_');
  });

  it('draws no diff of an existing file that cannot be read as it was judged: never one against an empty file', async () => {
    const changed = Object.assign(new Error('target changed'), { reason: 'target_changed' });
    const fs = { readFile: () => Promise.reject(changed) } as unknown as FsCapability;
    expect(await diffForWrite(fs, request('region = "us-east-1"\n'))).toBeUndefined();
  });

  it('gives up a diff that would hold the gateway\'s thread, and the card shows the write itself', async () => {
    const lines = (tag: string, count: number): string => Array.from({ length: count }, (_, index) => `${tag}${String(index)}`).join('\n');
    const fs = { readFile: () => Promise.resolve({ content: lines('a', 35_000) }) } as unknown as FsCapability;
    const started = performance.now();
    expect(await diffForWrite(fs, request(lines('b', 9000)))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
