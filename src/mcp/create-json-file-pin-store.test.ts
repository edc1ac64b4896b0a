import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJsonFilePinStore } from './create-json-file-pin-store.js';
import type { McpPin } from './pin-store.js';

const pin = (tool: string, digest = 'a'.repeat(64)): McpPin => ({ server: 's', tool, digest, approvedAt: '2026-01-01T00:00:00.000Z', approvedBy: 'test' });

async function tempFile(content?: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'toolgate-pinstore-')), 'nested', 'pins.json');
  if (content !== undefined) {
    await writeFile(join(file, '..', '..', 'pins.json'), content);
    return join(file, '..', '..', 'pins.json');
  }
  return file;
}

async function savedTools(file: string): Promise<string[]> {
  return (JSON.parse(await readFile(file, 'utf8')) as { pins: McpPin[] }).pins.map((saved) => saved.tool).sort();
}

/** A lock file as another process leaves it, with its mtime set `ageMs` in the past. */
async function lockAs(file: string, text: string, ageMs: number): Promise<void> {
  await writeFile(`${file}.lock`, text);
  const then = new Date(Date.now() - ageMs);
  await utimes(`${file}.lock`, then, then);
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid;
}

describe('createJsonFilePinStore', () => {
  it("lists one server's pins, as the file holds them", async () => {
    const file = await tempFile();
    const store = createJsonFilePinStore(file);
    await Promise.all([store.set(pin('a')), store.set(pin('b')), store.set({ ...pin('c'), server: 'other' })]);
    expect((await store.list('s')).map((saved) => saved.tool).sort()).toEqual(['a', 'b']);
    expect(await createJsonFilePinStore(file).list('nobody')).toEqual([]);
  });

  it('starts empty when the file does not exist, and writes it private (0600)', async () => {
    const file = await tempFile();
    const store = createJsonFilePinStore(file);
    expect(await store.get('s', 'a')).toBeUndefined();
    await store.set(pin('a'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await createJsonFilePinStore(file).get('s', 'a')).toEqual(pin('a'));
  });

  it('keeps the approved definition, and reads a pin file written before definitions were kept', async () => {
    const older = await tempFile(`${JSON.stringify({ version: 1, pins: [pin('old')] })}\n`);
    expect(await createJsonFilePinStore(older).get('s', 'old')).toEqual(pin('old'));
    const store = createJsonFilePinStore(older);
    const definition = { title: 'New', description: 'Look up.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
    await store.set({ ...pin('new'), definition });
    const reread = createJsonFilePinStore(older);
    expect(await reread.get('s', 'new')).toEqual({ ...pin('new'), definition });
    expect(await reread.get('s', 'old')).toEqual(pin('old'));
  });

  it.each([
    ['no input schema', { description: 'x' }],
    ['a description that is not text', { description: 1, inputSchema: {} }],
    ['an input schema that is an array', { inputSchema: [] }],
    ['annotations that are not an object', { inputSchema: {}, annotations: 'yes' }],
  ])('refuses a pin whose kept definition has %s, never reading it as no pins', async (_label, definition) => {
    const file = await tempFile(JSON.stringify({ version: 1, pins: [{ ...pin('a'), definition }] }));
    await expect(createJsonFilePinStore(file).get('s', 'a')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('serialises concurrent approvals so none is lost', async () => {
    const file = await tempFile();
    const store = createJsonFilePinStore(file);
    await Promise.all(Array.from({ length: 20 }, (_, index) => store.set(pin(`t${index}`))));
    const saved = JSON.parse(await readFile(file, 'utf8')) as { pins: McpPin[] };
    expect(saved.pins).toHaveLength(20);
    expect(await readdir(join(file, '..'))).toEqual(['pins.json']);
  });

  it.each([
    ['not JSON', '{'],
    ['a wrong version', '{"version":2,"pins":[]}'],
    ['a malformed digest', JSON.stringify({ version: 1, pins: [{ ...pin('a'), digest: 'nothex' }] })],
    ['a pin missing fields', '{"version":1,"pins":[{"server":"s"}]}'],
    ['null', 'null'],
  ])('refuses a file holding %s instead of reading it as empty', async (_label, content) => {
    const store = createJsonFilePinStore(await tempFile(content));
    await expect(store.get('s', 'a')).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
  });

  it('refuses to write over a file it cannot parse, leaves it as it was, and releases the lock', async () => {
    const file = await tempFile('{');
    await expect(createJsonFilePinStore(file).set(pin('a'))).rejects.toMatchObject({ code: 'CONFIGURATION_INVALID' });
    expect(await readFile(file, 'utf8')).toBe('{');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});

describe('createJsonFilePinStore shared by several stores', () => {
  it('sees approvals another store wrote after its own first read', async () => {
    const file = await tempFile();
    const first = createJsonFilePinStore(file);
    const second = createJsonFilePinStore(file);
    expect(await second.get('s', 'a')).toBeUndefined();
    await first.set(pin('a'));
    expect(await second.get('s', 'a')).toEqual(pin('a'));
  });

  it('merges approvals into what is on disk instead of rewriting a map it read earlier', async () => {
    const file = await tempFile();
    const stores = ['a', 'b', 'c'].map(() => createJsonFilePinStore(file));
    for (const store of stores) await store.get('s', 'x');
    await Promise.all(stores.flatMap((store, index) => [store.set(pin(`${index}-0`)), store.set(pin(`${index}-1`))]));
    await stores[0]!.set(pin('1-0', 'b'.repeat(64)));
    expect(await savedTools(file)).toEqual(['0-0', '0-1', '1-0', '1-1', '2-0', '2-1']);
    expect((await stores[2]!.get('s', '1-0'))?.digest).toBe('b'.repeat(64));
  });

  it('waits while another process holds the lock, then applies its approval to what that process wrote', async () => {
    const file = await tempFile();
    await createJsonFilePinStore(file).set(pin('before'));
    // A live owner (this process, under another token): the lock must be honoured, not broken.
    await lockAs(file, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other' }), 0);
    let settled = false;
    const setting = createJsonFilePinStore(file).set(pin('mine')).finally(() => (settled = true));
    await sleep(150);
    expect(settled).toBe(false);
    // What the holder writes before it lets go must survive the waiting write.
    await writeFile(file, JSON.stringify({ version: 1, pins: [pin('before'), pin('theirs')] }));
    await rm(`${file}.lock`);
    await setting;
    expect(await savedTools(file)).toEqual(['before', 'mine', 'theirs']);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('honours a young lock whose owner is not alive here (its pid may belong to another namespace)', async () => {
    const file = await tempFile();
    await createJsonFilePinStore(file).set(pin('before'));
    // 1.2 s old: the grace (2 s) ends 0.8 s into the wait.
    await lockAs(file, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'young' }), 1_200);
    let settled = false;
    const setting = createJsonFilePinStore(file).set(pin('a')).finally(() => (settled = true));
    await sleep(300);
    expect(settled).toBe(false);
    await setting;
    expect(await savedTools(file)).toEqual(['a', 'before']);
  });

  it.each([
    ['a dead process on this host, a few seconds ago', () => JSON.stringify({ pid: deadPid(), host: hostname(), token: 'dead' }), 3_000],
    ['a process that crashed before naming itself', () => '', 60_000],
    ['another host, long ago', () => JSON.stringify({ pid: process.pid, host: 'elsewhere.invalid', token: 'far' }), 60_000],
    ['a live pid, long ago (reused, or the holder hung)', () => JSON.stringify({ pid: process.pid, host: hostname(), token: 'hung' }), 60_000],
  ])('breaks a stale lock left by %s, and writes', async (_label, text, ageMs) => {
    const file = await tempFile();
    await createJsonFilePinStore(file).set(pin('before'));
    await lockAs(file, text(), ageMs);
    const started = Date.now();
    await createJsonFilePinStore(file).set(pin('after'));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await savedTools(file)).toEqual(['after', 'before']);
    expect(await readdir(join(file, '..'))).toEqual(['pins.json']);
  });
});

describe('createJsonFilePinStore shared by several processes', () => {
  // The children run the built package, as a gateway does.
  const fixture = fileURLToPath(new URL('./__fixtures__/pin-approve-child.mjs', import.meta.url));
  beforeAll(() => {
    if (!existsSync(fileURLToPath(new URL('../../dist/mcp/index.js', import.meta.url)))) throw new Error('build first: npx tsc -p tsconfig.build.json');
  });

  it('keeps every approval when four gateways approve different names at the same instants', async () => {
    const file = await tempFile();
    const labels = ['a', 'b', 'c', 'd'];
    const rounds = 8;
    const children = labels.map((label) => {
      const child = spawn(process.execPath, [fixture, file, label, String(rounds)], { stdio: ['pipe', 'pipe', 'inherit'] });
      let output = '';
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('ready\n')) resolve();
        });
        child.once('exit', () => reject(new Error(`child ${label} exited before it was ready: ${output}`)));
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      return { child, ready, exited, output: () => output };
    });
    await Promise.all(children.map((entry) => entry.ready));
    const startAt = String(Date.now() + 50);
    for (const { child } of children) child.stdin.end(`${startAt}\n`);
    expect(await Promise.all(children.map((entry) => entry.exited))).toEqual([0, 0, 0, 0]);
    expect(children.map((entry) => entry.output())).toEqual(labels.map(() => 'ready\ndone\n'));
    const expected = labels.flatMap((label) => Array.from({ length: rounds }, (_, round) => [`${label}-${round}-0`, `${label}-${round}-1`]).flat()).sort();
    const saved = JSON.parse(await readFile(file, 'utf8')) as { pins: McpPin[] };
    expect(saved.pins.map((entry) => entry.tool).sort()).toEqual(expected);
    expect(saved.pins.every((entry) => entry.tool.startsWith(`${entry.approvedBy}-`))).toBe(true);
    expect(await readdir(join(file, '..'))).toEqual(['pins.json']);
  });
});
