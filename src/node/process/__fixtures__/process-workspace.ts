import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { createNodeHost } from '../../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../../node-host-types.js';

export interface ProcessWorkspace {
  readonly base: string;
  readonly workspace: string;
  /** A folder beside the workspace, outside it. */
  readonly outside: string;
  /** A host on the workspace (sandbox off unless asked), closed after the file's tests. */
  readonly makeHost: (options?: Partial<NodeHostOptions>) => NodeHost;
}

/** A temporary workspace for one test file: made before its tests, removed (hosts closed) after them. */
export function useProcessWorkspace(): ProcessWorkspace {
  let base = '';
  const hosts: NodeHost[] = [];
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'toolgate-proc-'));
    await mkdir(path.join(base, 'ws'));
    await mkdir(path.join(base, 'outside'));
  });
  afterAll(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await rm(base, { recursive: true, force: true });
  });
  return {
    get base() {
      return base;
    },
    get workspace() {
      return path.join(base, 'ws');
    },
    get outside() {
      return path.join(base, 'outside');
    },
    makeHost: (options = {}) => {
      const host = createNodeHost({ workspace: path.join(base, 'ws'), spillDir: path.join(base, `spill-${hosts.length}`), sandbox: 'off', ...options });
      hosts.push(host);
      return host;
    },
  };
}

export async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/**
 * Plant `config/prod/key.json` in `workspace`, for a host that protects it,
 * and return the check that it stays under its mask: moving or removing the
 * folders above it neither reads nor moves it, while the rest of `config`
 * stays writable.
 */
export async function plantMaskedKey(workspace: string): Promise<(host: NodeHost) => Promise<void>> {
  await mkdir(path.join(workspace, 'config', 'prod'), { recursive: true });
  await writeFile(path.join(workspace, 'config', 'prod', 'key.json'), 'KEY-SECRET');
  return async (host) => {
    for (const script of ['mv config moved && cat moved/prod/key.json', 'mv config/prod config/p2 && cat config/p2/key.json', 'cp -r config copy; rm -rf config; cat copy/prod/key.json']) {
      const attempt = await host.process.spawn('sh', ['-c', script], {}, {});
      expect(attempt.stdout, script).not.toContain('KEY-SECRET');
    }
    expect(await readFile(path.join(workspace, 'config', 'prod', 'key.json'), 'utf8')).toBe('KEY-SECRET');
    expect((await host.process.spawn('sh', ['-c', 'mkdir -p config/other && touch config/other/x && mv config/other config/renamed'], {}, {})).exitCode).toBe(0);
    expect(await exists(path.join(workspace, 'config', 'renamed', 'x'))).toBe(true);
  };
}
