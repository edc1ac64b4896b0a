import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
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
