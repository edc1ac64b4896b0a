import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dropTreeOfD, plainGit, sparsePartialClone } from '../../../test/support/partial-clone.js';
import { ToolUnavailableError } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost } from '../node-host-types.js';

/**
 * Programs a repository's configuration names for a transport: the
 * upload-pack of a remote reached by path, the proxy of the git protocol.
 * git takes the first of several values for these, so no override given
 * after the repository's own can replace them: the transport that would run
 * them is refused instead. And the host's own probe of the configuration,
 * which runs before any override exists, never fetches at all.
 */

let base: string;
let marker: string;
let payload: string;
const hosts: NodeHost[] = [];

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-git-transports-'));
  marker = path.join(base, 'payload-ran');
  payload = path.join(base, 'payload.sh');
  await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec git-upload-pack "$@"\n`);
  await chmod(payload, 0o755);
});

// Each test counts the payload's runs from none: in a shuffled order, another test's control runs may come first.
beforeEach(() => rm(marker, { force: true }));

afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
  await rm(base, { recursive: true, force: true });
});

function makeHost(workspace: string): NodeHost {
  const host = createNodeHost({ workspace, spillDir: path.join(base, `spill-${hosts.length}`), sandbox: 'off' });
  hosts.push(host);
  return host;
}

const ran = (): Promise<string> => readFile(marker, 'utf8').catch(() => '');

describe('process: programs a repository names for a transport', { timeout: 60_000 }, () => {
  it('never fetches a missing object, so an upload-pack the repository names does not run on the host', async () => {
    const scratch = path.join(base, 'partial');
    const workspace = path.join(scratch, 'ws');
    await mkdir(scratch);
    await sparsePartialClone(scratch, workspace);
    const host = makeHost(workspace);
    // Written by the host-run git itself, with a transport the repository allows for good measure.
    expect((await host.process.spawn('git', ['config', 'remote.origin.uploadpack', payload], {}, {})).exitCode).toBe(0);
    expect((await host.process.spawn('git', ['config', 'protocol.file.allow', 'always'], {}, {})).exitCode).toBe(0);
    await dropTreeOfD(scratch, workspace);
    // The probe cannot read the repository without that tree, so the command is refused.
    const refused = await host.process.spawn('git', ['status'], {}, {}).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ToolUnavailableError);
    expect(await ran()).toBe('');
    // The control: plain git fetches the tree through the payload.
    plainGit(workspace, 'ls-files', '--stage');
    expect(await ran()).not.toBe('');
  });

  it("never runs a remote's upload-pack on a fetch from a path, nor the git protocol's proxy", async () => {
    const workspace = path.join(base, 'transports');
    await mkdir(workspace);
    plainGit(workspace, 'init', '-q', 'other');
    plainGit(path.join(workspace, 'other'), 'commit', '-q', '--allow-empty', '-m', 'x');
    plainGit(workspace, 'init', '-q', 'repo');
    const host = makeHost(workspace);
    const spawn = (...args: string[]) => host.process.spawn('git', args, {}, { cwd: 'repo' });
    // Written by the host-run git itself.
    expect((await spawn('remote', 'add', 'origin', '../other')).exitCode).toBe(0);
    expect((await spawn('config', 'remote.origin.uploadpack', payload)).exitCode).toBe(0);
    expect((await spawn('config', 'core.gitProxy', payload)).exitCode).toBe(0);
    for (const args of [['fetch', 'origin'], ['ls-remote', 'origin'], ['ls-remote', 'git://127.0.0.1:9/x']]) {
      expect((await spawn(...args)).exitCode, args.join(' ')).not.toBe(0);
    }
    expect(await ran()).toBe('');
    // The control: plain git runs both.
    const repo = path.join(workspace, 'repo');
    plainGit(repo, 'fetch', 'origin');
    try {
      plainGit(repo, 'ls-remote', 'git://127.0.0.1:9/x');
    } catch {
      // The payload is no git daemon: what matters is that it ran.
    }
    expect((await ran()).split('\n').filter(Boolean)).toHaveLength(2);
  });
});
