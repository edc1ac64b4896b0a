import { describe, expect, test } from 'vitest';
import { ToolPolicyError, type ResolvedAction, type ResolvedPath, type ResolveTargetRequest, type ToolHost } from '../core/internal.js';
import { recheckUpstreamTargets } from './recheck-upstream-targets.js';

const file = (requested: string, real: string, extra: Partial<ResolvedPath> = {}): ResolvedPath => ({
  requested,
  path: requested,
  real,
  protected: false,
  linkTraversal: false,
  outside: false,
  created: false,
  hardLinked: false,
  identity: `file:1:${real}`,
  ...extra,
});

/** A host whose disk answers `now` for each requested path, and records what it was asked. */
function hostAnswering(now: Record<string, ResolvedPath>): ToolHost & { asked: ResolveTargetRequest[] } {
  const asked: ResolveTargetRequest[] = [];
  return {
    asked,
    resolve: (request) => {
      asked.push(request);
      return { files: request.paths.map((path) => now[path] as ResolvedPath) };
    },
  };
}

const judged = (files: ResolvedPath[], resolvedBy: ResolvedAction['resolvedBy'] = 'host'): ResolvedAction => ({ resolvedBy, access: 'read', files });

describe('recheckUpstreamTargets', () => {
  test('the same targets pass, and the host is asked for every requested path with the call access', async () => {
    const host = hostAnswering({ 'notes.md': file('notes.md', 'notes.md'), 'a.md': file('a.md', 'a.md') });
    await recheckUpstreamTargets(host, 'mcp_fs_read_multiple_files', judged([file('notes.md', 'notes.md'), file('a.md', 'a.md')]));
    expect(host.asked).toEqual([{ tool: 'mcp_fs_read_multiple_files', access: 'read', paths: ['notes.md', 'a.md'] }]);
  });

  test.each([
    ['a link to .env swapped in', file('notes.md', '.env', { protected: true, linkTraversal: true })],
    ['another file renamed over it', file('notes.md', 'notes.md', { identity: 'file:2:notes.md' })],
    ['the file removed', file('notes.md', 'notes.md', { created: true })],
    ['a second hard link made', file('notes.md', 'notes.md', { hardLinked: true })],
  ])('%s is refused as target_changed', async (_label, now) => {
    const host = hostAnswering({ 'notes.md': now });
    const refused = recheckUpstreamTargets(host, 'mcp_fs_read_text_file', judged([file('notes.md', 'notes.md')]));
    await expect(refused).rejects.toBeInstanceOf(ToolPolicyError);
    await expect(refused).rejects.toMatchObject({ reason: 'target_changed' });
  });

  test('a file the call writes, rewritten in place since it was judged (the same inode, another content stamp), is refused as target_changed', async () => {
    const host = hostAnswering({ 'notes.md': file('notes.md', 'notes.md', { contentStamp: '1:7:40:2:2' }) });
    const refused = recheckUpstreamTargets(host, 'mcp_fs_write_file', { resolvedBy: 'host', access: 'write', files: [file('notes.md', 'notes.md', { contentStamp: '1:7:33:1:1' })] });
    await expect(refused).rejects.toMatchObject({ reason: 'target_changed' });
  });

  test('a call resolved lexically, with no file target, or on a host without resolve is not asked about', async () => {
    const host = hostAnswering({});
    await recheckUpstreamTargets(host, 't', judged([file('notes.md', 'notes.md')], 'lexical'));
    await recheckUpstreamTargets(host, 't', judged([]));
    await recheckUpstreamTargets(host, 't', undefined);
    await recheckUpstreamTargets({}, 't', judged([file('notes.md', 'notes.md')]));
    expect(host.asked).toEqual([]);
  });
});
