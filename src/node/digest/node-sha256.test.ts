import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSha256 } from '../../core/digest/check-sha256.js';
import { addTool, grantAll, harness, writeFileTool } from '../../core/dispatch/__fixtures__/pipeline-fixtures.js';
import { createToolRegistry } from '../../core/registry/create-tool-registry.js';
import { createNodeHost } from '../create-node-host.js';
import { nodeSha256 } from './node-sha256.js';

const nodeHash = nodeSha256;
const grantedTools = grantAll(addTool, writeFileTool);
const call = { callId: 'c', name: 'write_file', arguments: { path: 'notes/ünï.md', content: 'héllo 😀' } };

describe('a synchronous SHA-256 supplied by the host or the registry', () => {
  it('the Node host supplies node:crypto\'s, and it passes the known answers', () => {
    const host = createNodeHost({ workspace: process.cwd() });
    try {
      expect(host.sha256).toBe(nodeSha256);
      expect(checkSha256(host.sha256, 'host.sha256')).toBe(nodeSha256);
      expect(nodeSha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    } finally {
      void host.close();
    }
  });

  it('gives the same digests as the Web Crypto fallback, synchronously (no thread-pool round trip)', async () => {
    const fallback = await harness([writeFileTool]).registry.prepare(call, { grantedTools, agent: 'alice' });
    let calls = 0;
    const counted = (text: string): string => {
      calls += 1;
      return nodeHash(text);
    };
    const viaRegistry = await harness([writeFileTool], { sha256: counted }).registry.prepare(call, { grantedTools, agent: 'alice' });
    expect(viaRegistry.actionDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(viaRegistry.inputDigest).toBe(fallback.inputDigest);
    expect(viaRegistry.actionDigest).toBe(fallback.actionDigest);
    // Three known answers at build time, then exactly two per call: the canonical input once, the action once.
    expect(calls).toBe(3 + 2);
  });

  it('takes the host’s hash, and the registry option over it', async () => {
    const seen: string[] = [];
    const hostHash = (text: string): string => {
      seen.push('host');
      return nodeHash(text);
    };
    const optionHash = (text: string): string => {
      seen.push('option');
      return nodeHash(text);
    };
    const base = harness([addTool]);
    const viaHost = createToolRegistry({ tools: [addTool], host: { ...base.host, sha256: hostHash }, policy: base.policy });
    await viaHost.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools });
    expect(seen.filter((who) => who === 'host')).toHaveLength(5);
    seen.length = 0;
    const both = createToolRegistry({ tools: [addTool], host: { ...base.host, sha256: hostHash }, sha256: optionHash, policy: base.policy });
    await both.prepare({ callId: 'c', name: 'add', arguments: { a: 1, b: 2 } }, { grantedTools });
    // The host's hash is then neither consulted nor used.
    expect(seen).toEqual(['option', 'option', 'option', 'option', 'option']);
  });

  it('refuses, when the registry is built, a function that is not SHA-256 of the UTF-8 text', () => {
    const wrong: Record<string, unknown> = {
      'not a function': 'sha256',
      'a constant digest (every action would share one approval)': () => 'a'.repeat(64),
      'uppercase hex': (text: string) => nodeHash(text).toUpperCase(),
      'SHA-256 of Latin-1 bytes': (text: string) => createHash('sha256').update(text, 'latin1').digest('hex'),
      'SHA-256 of UTF-16 units': (text: string) => createHash('sha256').update(text, 'utf16le').digest('hex'),
      'a different hash (SHA-512/256 prefix)': (text: string) => createHash('sha512').update(text).digest('hex').slice(0, 64),
      'base64 instead of hex': (text: string) => createHash('sha256').update(text).digest('base64'),
      'a hash that throws': () => {
        throw new Error('no');
      },
      'an async hash': (text: string) => Promise.resolve(nodeHash(text)),
    };
    for (const [label, hash] of Object.entries(wrong)) {
      expect(() => checkSha256(hash, 'sha256'), label).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID', field: 'sha256' }));
      expect(() => createToolRegistry({ tools: [addTool], sha256: hash as never }), label).toThrow(expect.objectContaining({ code: 'CONFIGURATION_INVALID' }));
      expect(() => createToolRegistry({ tools: [addTool], host: { sha256: hash as never } }), label).toThrow(expect.objectContaining({ field: 'host.sha256' }));
    }
    expect(checkSha256(undefined, 'sha256')).toBeUndefined();
    expect(checkSha256(nodeHash, 'sha256')).toBe(nodeHash);
  });

  it('fails the call closed when a hash that passed its known answers later returns something that is not a digest', async () => {
    let answers = 0;
    const turning = (text: string): string => {
      answers += 1;
      return answers <= 3 ? nodeHash(text) : 'not-a-digest';
    };
    const { registry, host } = harness([writeFileTool], { sha256: turning });
    const approved: string[] = [];
    await expect(
      registry.dispatch(call, {
        grantedTools,
        approval: {
          confirm: (request) => {
            approved.push(request.actionDigest);
            return Promise.resolve({ outcome: 'approve' });
          },
        },
      }),
    ).rejects.toThrow(/64 lowercase hex/);
    expect(approved).toEqual([]);
    expect(host.calls).toEqual([]);
  });
});
