import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost } from '../node-host-types.js';

const ITERATIONS = Number(process.env.RACE_ITERATIONS ?? 200);

// A separate process swaps `ws/dir` for a symlink to `outside` and back, as fast as it can.
const swapper = `
const fs = require('node:fs');
const [dir, parked, outside] = process.argv.slice(1);
for (;;) {
  try { fs.renameSync(dir, parked); fs.symlinkSync(outside, dir); } catch {}
  try {
    // A racing write may have created a real 'dir' while the name was free: clear it so the swap goes on.
    try { fs.unlinkSync(dir); } catch { fs.rmSync(dir, { recursive: true, force: true }); }
    fs.renameSync(parked, dir);
  } catch {}
}
`;

let base: string;
let outside: string;
let host: NodeHost;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-race-'));
  const workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, 'dir'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, 'dir', 'f.txt'), 'inside');
  await writeFile(path.join(outside, 'f.txt'), 'OUTSIDE');
  host = createNodeHost({ workspace, spillDir: path.join(base, 'spill'), sandbox: 'off' });
});

afterAll(async () => {
  await host.close();
  await rm(base, { recursive: true, force: true });
});

describe('fs: a parent directory swapped for a symlink mid-call', () => {
  it(`never reads or writes outside the workspace over ${ITERATIONS} racing iterations`, async () => {
    const workspace = host.workspace;
    const child = spawn(process.execPath, ['-e', swapper, path.join(workspace, 'dir'), path.join(workspace, 'dir-parked'), outside], { stdio: 'ignore' });
    const outcomes = { read: 0, wrote: 0, refused: 0, failed: 0 };
    try {
      for (let index = 0; index < ITERATIONS; index += 1) {
        const [read, written, listed] = await Promise.allSettled([
          host.fs.readFile('dir/f.txt'),
          host.fs.writeFile(`dir/w-${index}.txt`, 'payload'),
          host.fs.listDirectory('dir'),
        ]);
        if (read.status === 'fulfilled') {
          expect(read.value.content).toBe('inside');
          outcomes.read += 1;
        } else if ((read.reason as { reason?: string }).reason === 'symlink_refused') outcomes.refused += 1;
        else outcomes.failed += 1;
        if (written.status === 'fulfilled') outcomes.wrote += 1;
        if (listed.status === 'fulfilled') expect(listed.value.every((entry) => entry.path.startsWith('dir/'))).toBe(true);
        if (listed.status === 'fulfilled') expect(listed.value.map((entry) => entry.path)).not.toContain('dir/OUTSIDE');
      }
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
    }
    // Nothing outside was written, and the outside file is untouched.
    expect(await readdir(outside)).toEqual(['f.txt']);
    expect(await readFile(path.join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE');
    // The race really happened: some calls ran while the symlink was in place.
    expect(outcomes.read + outcomes.refused + outcomes.failed).toBe(ITERATIONS);
    expect(outcomes.refused + outcomes.failed).toBeGreaterThan(0);
  });
});
