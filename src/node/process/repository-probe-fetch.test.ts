import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTreeOfD, plainGit, sparsePartialClone } from '../../../test/support/partial-clone.js';
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
let host: NodeHost | undefined;

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-probe-fetch-'));
});

afterAll(async () => {
  await host?.close();
  await rm(base, { recursive: true, force: true });
});

describe('process: the repository probe', { timeout: 60_000 }, () => {
  it('never fetches a missing object, so an upload-pack the repository names does not run on the host', async () => {
    const workspace = path.join(base, 'ws');
    await sparsePartialClone(base, workspace);
    const marker = path.join(base, 'payload-ran');
    const payload = path.join(base, 'payload.sh');
    await writeFile(payload, `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec git-upload-pack "$@"\n`);
    await chmod(payload, 0o755);
    host = createNodeHost({ workspace, spillDir: path.join(base, 'spill'), sandbox: 'off' });
    // Written by the host-run git itself, with a transport the repository allows for good measure.
    expect((await host.process.spawn('git', ['config', 'remote.origin.uploadpack', payload], {}, {})).exitCode).toBe(0);
    expect((await host.process.spawn('git', ['config', 'protocol.file.allow', 'always'], {}, {})).exitCode).toBe(0);
    await dropTreeOfD(base, workspace);
    // The probe cannot read the repository without that tree, so the command is refused.
    const refused = await host.process.spawn('git', ['status'], {}, {}).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(ToolUnavailableError);
    expect(await readFile(marker, 'utf8').catch(() => '')).toBe('');
    // The control: plain git fetches the tree through the payload.
    plainGit(workspace, 'ls-files', '--stage');
    expect(await readFile(marker, 'utf8')).not.toBe('');
  });
});
