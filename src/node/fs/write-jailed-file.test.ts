import { createHash } from 'node:crypto';
import { constants, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolgateError, ToolPolicyError } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import type { NodeHost, NodeHostOptions } from '../node-host-types.js';
import { createFsJail } from './fs-jail.js';
import { createInDirectory, openVerifiedDirectory } from './open-verified.js';
import { temporaryNameFor } from './write-jailed-file.js';

let base: string;
let workspace: string;
let outside: string;
const hosts: NodeHost[] = [];

function makeHost(options: Partial<NodeHostOptions> = {}): NodeHost {
  const host = createNodeHost({ workspace, spillDir: path.join(base, 'spill'), sandbox: 'off', ...options });
  hosts.push(host);
  return host;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

async function failure(promise: Promise<unknown>): Promise<ToolgateError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(ToolgateError);
  return error as ToolgateError;
}

async function aborted(promise: Promise<unknown>): Promise<void> {
  expect((await rejection(promise)).name).toBe('AbortError');
}

/** Everything under the workspace, relative, sorted. */
async function tree(): Promise<string[]> {
  return (await readdir(workspace, { recursive: true })).map(String).sort();
}

/**
 * A real AbortSignal that aborts itself the first time it is consulted after
 * `when()` holds, after running `meanwhile` (a concurrent actor, synchronous
 * so it is done before the write goes on): an abort that arrives while the
 * write is creating folders, without timing games. With `abort = false` only
 * the concurrent actor runs.
 */
function abortWhen(when: () => boolean, meanwhile?: () => void, abort = true): AbortSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  const original = signal.throwIfAborted.bind(signal);
  let fired = false;
  signal.throwIfAborted = () => {
    if (!fired && when()) {
      fired = true;
      meanwhile?.();
      if (abort) controller.abort();
    }
    original();
  };
  return signal;
}

function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'toolgate-write-'));
  workspace = path.join(base, 'ws');
  outside = path.join(base, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
});

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  await rm(base, { recursive: true, force: true });
});

describe('write_file expectedSha256: the current file is hashed within maxFileBytes', () => {
  const cap = 64 * 1024;

  async function sparse(name: string, size: number): Promise<string> {
    const file = path.join(workspace, name);
    const handle = await open(file, 'w');
    await handle.truncate(size);
    await handle.close();
    return file;
  }

  it('refuses as too_large, without reading it, a current file over the cap, even with its correct hash', async () => {
    const size = 64 * 1024 * 1024;
    const file = await sparse('big.log', size);
    const zeros = Buffer.alloc(1024 * 1024);
    const hash = createHash('sha256');
    for (let done = 0; done < size; done += zeros.byteLength) hash.update(zeros);
    const correct = hash.digest('hex');
    const host = makeHost({ maxFileBytes: cap });

    for (const expectedSha256 of [correct, '0'.repeat(64)]) {
      const error = await failure(host.fs.writeFile('big.log', 'tiny', { expectedSha256 }));
      expect(error).toBeInstanceOf(ToolPolicyError);
      expect((error as ToolPolicyError).reason).toBe('too_large');
      expect(error.message).not.toContain('big.log');
    }
    expect((await stat(file)).size).toBe(size);
    expect(await tree()).toEqual(['big.log']);
  });

  it('still compares a file at the cap exactly, and refuses one byte more', async () => {
    const host = makeHost({ maxFileBytes: cap });
    const atCap = 'x'.repeat(cap);
    await writeFile(path.join(workspace, 'edge.txt'), atCap);
    expect(await host.fs.writeFile('edge.txt', 'new', { expectedSha256: sha256Of(atCap) })).toMatchObject({ bytes: 3, created: false });
    const stale = await failure(host.fs.writeFile('edge.txt', 'newer', { expectedSha256: sha256Of(atCap) }));
    expect(stale).toMatchObject({ code: 'EXECUTION_FAILED', recoverable: true });

    const over = `${atCap}y`;
    await writeFile(path.join(workspace, 'edge.txt'), over);
    const error = await failure(host.fs.writeFile('edge.txt', 'new', { expectedSha256: sha256Of(over) }));
    expect((error as ToolPolicyError).reason).toBe('too_large');
    expect(await readFile(path.join(workspace, 'edge.txt'), 'utf8')).toBe(over);
  });
});

describe('write_file: a refused write leaves no folders it created', () => {
  it('refuses a stale expectedSha256 for a file under missing folders without creating them', async () => {
    const host = makeHost();
    const error = await failure(host.fs.writeFile('a/b/c/file.txt', 'x', { expectedSha256: '0'.repeat(64) }));
    expect(error).toMatchObject({ code: 'EXECUTION_FAILED', recoverable: true });
    expect(existsSync(path.join(workspace, 'a'))).toBe(false);
    expect(await tree()).toEqual([]);
  });

  it('keeps folders that existed before the call, even empty ones', async () => {
    const host = makeHost();
    await mkdir(path.join(workspace, 'a'));
    await failure(host.fs.writeFile('a/b/c/file.txt', 'x', { expectedSha256: sha256Of('x') }));
    const signal = abortWhen(() => existsSync(path.join(workspace, 'a/b/c')));
    await aborted(host.fs.writeFile('a/b/c/file.txt', 'x', {}, signal));
    expect(signal.aborted).toBe(true);
    expect(await tree()).toEqual(['a']);
  });

  it('removes the folders it created when an abort arrives after the first one', async () => {
    const host = makeHost();
    const signal = abortWhen(() => existsSync(path.join(workspace, 'a')));
    await aborted(host.fs.writeFile('a/b/c/file.txt', 'x', {}, signal));
    expect(signal.aborted).toBe(true);
    expect(await tree()).toEqual([]);
  });

  it('removes the folders it created when an abort arrives after all of them, before the rename', async () => {
    const host = makeHost();
    const signal = abortWhen(() => existsSync(path.join(workspace, 'a/b/c')));
    await aborted(host.fs.writeFile('a/b/c/file.txt', 'x', {}, signal));
    expect(signal.aborted).toBe(true);
    expect(await tree()).toEqual([]);
  });

  it('keeps a folder it created that someone else filled in the meantime (and every folder above it)', async () => {
    const host = makeHost();
    const signal = abortWhen(
      () => existsSync(path.join(workspace, 'a/b/c')),
      () => writeFileSync(path.join(workspace, 'a/b/theirs.txt'), 'not yours'),
    );
    await aborted(host.fs.writeFile('a/b/c/file.txt', 'x', {}, signal));
    expect(await tree()).toEqual(['a', 'a/b', 'a/b/theirs.txt']);
  });
});

describe('write_file: folders created concurrently (the signal is consulted after each folder)', () => {
  it('goes on through a folder another writer created first, and does not count it as its own', async () => {
    const host = makeHost();
    const signal = abortWhen(() => existsSync(path.join(workspace, 'p')), () => mkdirSync(path.join(workspace, 'p/q')), false);
    expect(await host.fs.writeFile('p/q/r/file.txt', 'x', {}, signal)).toMatchObject({ bytes: 1, created: true });
    expect(await tree()).toEqual(['p', 'p/q', 'p/q/r', 'p/q/r/file.txt']);
  });

  it('refuses a symlink planted where it was about to create a folder, writes nothing outside, keeps what is no longer empty', async () => {
    const host = makeHost();
    const signal = abortWhen(() => existsSync(path.join(workspace, 'p')), () => symlinkSync(outside, path.join(workspace, 'p/q')), false);
    const error = await failure(host.fs.writeFile('p/q/r/file.txt', 'x', {}, signal));
    // O_NOFOLLOW | O_DIRECTORY on a symlink: Linux answers ENOTDIR, others ELOOP
    expect(error).toBeInstanceOf(ToolPolicyError);
    expect(['not_a_directory', 'symlink_refused']).toContain((error as ToolPolicyError).reason);
    expect(await readdir(outside)).toEqual([]);
    expect(await tree()).toEqual(['p', 'p/q']);
  });
});

describe('write_file: the temporary file is named in whole characters within a name', () => {
  it('cuts the target name at 100 bytes of UTF-8, never inside a character', () => {
    const emoji = temporaryNameFor(`${'a'.repeat(99)}\u{1F600}.txt`);
    expect(emoji.isWellFormed()).toBe(true);
    expect(emoji.startsWith(`.${'a'.repeat(99)}.`)).toBe(true);
    const wide = temporaryNameFor('文'.repeat(85));
    expect(wide.startsWith(`.${'文'.repeat(33)}.`)).toBe(true);
    expect(Buffer.byteLength(wide)).toBeLessThanOrEqual(255);
  });

  it('removes a temporary file it created when the directory moved since it was opened, and refuses', async () => {
    const jail = createFsJail({ workspace, scope: 'workspace-write', protectedPaths: [], hostPaths: [] });
    await mkdir(path.join(workspace, 'a'));
    const directory = await openVerifiedDirectory(jail, path.join(jail.workspace, 'a'), 'write_file');
    try {
      await rename(path.join(workspace, 'a'), path.join(workspace, 'b'));
      const error = await failure(createInDirectory(jail, directory, '.x.toolgate-tmp', constants.O_WRONLY, 'write_file', 0o644));
      expect((error as ToolPolicyError).reason).toBe('symlink_refused');
      expect(await readdir(path.join(workspace, 'b'))).toEqual([]);
    } finally {
      await directory.handle.close();
    }
  });
});
