import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolUnavailableError } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost } from '../node-host-types.js';

/**
 * The host reads a repository's configuration with git before the command
 * runs, on the host itself, before the inert overrides it computes are in
 * place. Nothing that probe runs may fetch: in a partial clone a missing
 * object is fetched on demand, through the upload-pack program the
 * repository's own configuration names.
 */

let base: string;
let marker: string;
let host: NodeHost | undefined;
const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.test' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], { cwd, env: { ...process.env, ...identity }, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-probe-fetch-'));
  marker = path.join(base, 'payload-ran');
});

afterAll(async () => {
  await host?.close();
  await rm(base, { recursive: true, force: true });
});

describe('process: the repository probe', { timeout: 60_000 }, () => {
  it('never fetches a missing object, so an upload-pack the repository names does not run on the host', async () => {
    const source = path.join(base, 'source');
    await mkdir(path.join(source, 'd'), { recursive: true });
    await mkdir(path.join(source, 'e'));
    git(base, 'init', '-q', source);
    await writeFile(path.join(source, 'd', 'f'), 'a\n');
    await writeFile(path.join(source, 'e', 'g'), 'b\n');
    git(source, 'add', '.');
    git(source, 'commit', '-qm', 'one');
    git(source, 'config', 'uploadpack.allowFilter', 'true');
    git(source, 'config', 'uploadpack.allowAnySHA1InWant', 'true');
    // A sparse partial clone whose index names the folder d by a tree it does not hold.
    const workspace = path.join(base, 'ws');
    git(base, 'clone', '-q', '--no-local', '--filter=tree:0', '--no-checkout', `file://${source}`, workspace);
    git(workspace, 'sparse-checkout', 'init', '--cone', '--sparse-index');
    git(workspace, 'sparse-checkout', 'set', 'e');
    git(workspace, 'checkout', '-q');
    const payload = path.join(base, 'payload.sh');
    await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec git-upload-pack "$@"\n`);
    await chmod(payload, 0o755);
    host = createNodeHost({ workspace, spillDir: path.join(base, 'spill'), sandbox: 'off', env: { set: identity } });
    // Written by the host-run git itself, with a transport the repository allows for good measure.
    expect((await host.process.spawn('git', ['config', 'remote.origin.uploadpack', payload], {}, {})).exitCode).toBe(0);
    expect((await host.process.spawn('git', ['config', 'protocol.file.allow', 'always'], {}, {})).exitCode).toBe(0);
    // Then the tree of d goes missing: every object but it, in one promisor pack.
    const tree = git(workspace, 'rev-parse', 'HEAD:d').trim();
    const pack = path.join(workspace, '.git', 'objects', 'pack');
    const kept = git(workspace, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n').filter((id) => id !== '' && id !== tree);
    const name = execFileSync('git', ['pack-objects', path.join(base, 'pack')], { cwd: workspace, input: `${kept.join('\n')}\n`, encoding: 'utf8' }).trim();
    for (const file of await readdir(pack)) await rm(path.join(pack, file));
    for (const suffix of ['pack', 'idx']) await writeFile(path.join(pack, `pack-${name}.${suffix}`), await readFile(path.join(base, `pack-${name}.${suffix}`)));
    await writeFile(path.join(pack, `pack-${name}.promisor`), '');
    // The probe cannot read the repository without that tree, so the command is refused.
    const refused = await host.process.spawn('git', ['status'], {}, {}).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ToolUnavailableError);
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');
    // The control: plain git fetches the tree through the payload.
    git(workspace, 'ls-files', '--stage');
    expect(await readFile(marker, 'utf8')).not.toBe('');
  });
});
