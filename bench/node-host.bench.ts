/**
 * The Node host against the bare Node calls it wraps, in one process run:
 * run_command `true` vs child_process.spawn; http_request to a loopback TLS
 * server in its own process (through the injected test resolver and
 * connector) vs a raw undici request; read_file of 1 MB vs fs.readFile.
 * Every host case goes through the full registry pipeline (grant,
 * validation, policy, bounding). Then the resolved action: a governed
 * write_file with and without `host.resolve`, the protected-path
 * classifier the host runs on every filesystem access, and the walk a
 * sandboxed spawn makes to find the protected files it masks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, readdirSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { createToolRegistry, defineTool, type PolicyDecision, type ToolPolicy } from 'toolgate';
import { builtinTools, createNodeHost } from 'toolgate/node';
import { Agent, request } from 'undici';
// Internal on purpose: the classifier alone, as the host's jail runs it.
import { createFsJail } from '../dist/node/fs/fs-jail.js';
import { createProtectedFileFinder } from '../dist/node/process/find-protected-files.js';
import { bench, checkGoal, cpuTimes, type BenchCase, type BenchRow } from './harness.js';

const allow: PolicyDecision = { kind: 'allow', matched: [] };
const allowAll: ToolPolicy = { version: 1, decideIdentity: () => allow, decideArguments: () => allow };
const granted = builtinTools.map((tool) => tool.name);

function spawnTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/true', [], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}

/** Start `https-server.mjs` and wait for the port it prints. */
function startServer(certFile: string, keyFile: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [path.resolve('bench/https-server.mjs'), certFile, keyFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => resolve({ child, port: Number(chunk.toString('utf8').trim()) }));
  });
}

export async function run(): Promise<void> {
  const fixtures = path.resolve('src/node/egress/__fixtures__');
  const certFile = path.join(fixtures, 'test-cert.pem');
  const cert = await readFile(certFile, 'utf8');
  const server = await startServer(certFile, path.join(fixtures, 'test-key.pem'));
  const port = server.port;

  const workspace = await mkdtemp(path.join(tmpdir(), 'toolgate-bench-'));
  await writeFile(path.join(workspace, 'one-mb.txt'), 'abcdefghijklmnopqrstuvwxyz01234\n'.repeat(32 * 1024));
  const host = createNodeHost({
    workspace,
    sandbox: 'off',
    maxFileBytes: 4 * 1024 * 1024,
    egress: {
      trustedCa: cert,
      lookup: () => Promise.resolve([{ address: '93.184.216.34', family: 4 }]),
      connect: () =>
        new Promise<Duplex>((resolve, reject) => {
          const socket = net.connect({ host: '127.0.0.1', port });
          socket.once('connect', () => resolve(socket));
          socket.once('error', reject);
        }),
    },
  });
  const registry = createToolRegistry({ tools: builtinTools, host, policy: allowAll });
  const context = { grantedTools: granted, limits: { maxBytes: 4 * 1024 * 1024, maxLines: 1_000_000 } };
  const rawAgent = new Agent({ connect: { ca: [cert], servername: 'api.example.test' } });
  let callId = 0;
  /** A call with the bench's large limits, or with the registry's defaults when `withLimits` is false. */
  const dispatch = async (name: string, args: unknown, withLimits = true): Promise<void> => {
    const outcome = await registry.dispatch({ callId: String((callId += 1)), name, arguments: args }, withLimits ? context : { grantedTools: granted });
    if (!outcome.ok) throw outcome.error;
  };

  try {
    await bench(
      [
        { name: 'child_process.spawn true', run: spawnTrue },
        { name: 'run_command true (host, no sandbox)', run: () => dispatch('run_command', { command: ['true'] }) },
      ],
      { title: 'run_command vs raw spawn', batch: 10, rounds: 15, warmup: 2 },
    );
    await bench(
      [
        {
          name: 'undici request (raw)',
          run: async () => {
            const response = await request(`https://127.0.0.1:${port}/`, { dispatcher: rawAgent });
            await response.body.text();
          },
        },
        { name: 'host.egress.fetch (capability only)', run: () => host.egress.fetch({ method: 'GET', url: 'https://api.example.test/' }) },
        { name: 'http_request (through the pipeline)', run: () => dispatch('http_request', { url: 'https://api.example.test/', method: 'GET' }) },
      ],
      { title: 'http_request vs raw undici (loopback TLS server in another process, keep-alive)', batch: 50, rounds: 40, warmup: 5 },
    );
    const reads = await bench(
      [
        { name: 'fs.readFile 1 MB', run: () => readFile(path.join(workspace, 'one-mb.txt'), 'utf8') },
        { name: 'host.fs.readFile 1 MB (capability only)', run: () => host.fs.readFile('one-mb.txt') },
        { name: 'read_file 1 MB (through the pipeline)', run: () => dispatch('read_file', { path: 'one-mb.txt' }) },
        // What a model gets by default: a 32 KiB preview, the whole text spilled for it to page through.
        { name: 'read_file 1 MB, default limits (a preview, the rest spilled)', run: () => dispatch('read_file', { path: 'one-mb.txt' }, false) },
      ],
      { title: 'read_file vs fs.readFile (goal: through the pipeline ≤ 2.5×)', batch: 20, rounds: 20, warmup: 3 },
    );
    checkGoal('read_file 1 MB through the pipeline vs fs.readFile', reads.find((row) => row.name.startsWith('read_file 1 MB'))?.ratio ?? Number.NaN, 2.5, '×');
    await benchResolution(workspace);
    await benchMaskWalk();
  } finally {
    await rawAgent.close();
    await host.close();
    server.child.stdin?.end();
    await rm(workspace, { recursive: true, force: true });
  }
}

/**
 * What resolving the target costs a governed `write_file` (approved by a
 * hook that says yes): the Node host as shipped against a copy without
 * `resolve`, where the engine resolves lexically. Both check the path again
 * at execution (without `resolve` a walk; with it no `lstat` at all, the
 * write's own open confirming the identity recorded at resolution); the
 * difference is the walk before policy (one `lstat` per component), the
 * classification and the engine's merge.
 */
async function benchResolution(workspace: string): Promise<void> {
  await mkdir(path.join(workspace, 'notes'), { recursive: true });
  const host = createNodeHost({ workspace, sandbox: 'off' });
  const { resolve: _resolve, ...unresolved } = host;
  const approval = { confirm: () => Promise.resolve({ outcome: 'approve' as const }) };
  // A governed write whose body does nothing: the same resolution without the disk write's noise around it.
  const noWrite = defineTool({
    name: 'no_write',
    description: 'benchmark: a governed write that writes nothing',
    input: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path'], additionalProperties: false },
    policy: { fsScoped: true, fsWrite: true },
    policyTarget: (args) => ({ path: String(args.path) }),
    dispatch: () => ({ written: false }),
  });
  const tools = [...builtinTools, noWrite];
  const context = { grantedTools: [...granted, 'no_write'], approval };
  const resolving = createToolRegistry({ tools, host, policy: allowAll });
  const lexical = createToolRegistry({ tools, host: unresolved, policy: allowAll });
  let callId = 0;
  const call = (registry: typeof resolving, name: string) => async (): Promise<void> => {
    const outcome = await registry.dispatch({ callId: String((callId += 1)), name, arguments: { path: 'notes/bench.md', content: 'bench\n' } }, context);
    if (!outcome.ok) throw outcome.error;
  };
  const target = { tool: 'write_file', access: 'write' as const, paths: ['notes/bench.md'] };
  const components = [path.join(host.workspace, 'notes'), path.join(host.workspace, 'notes', 'bench.md')];
  try {
    await bench(
      [
        { name: 'write_file governed, host without resolve', run: call(lexical, 'write_file') },
        { name: 'write_file governed, Node host (resolve)', run: call(resolving, 'write_file') },
      ],
      { title: 'resolution on a governed write_file (the disk write dwarfs it: read the no-op pair below)', batch: 200, rounds: 30, warmup: 3 },
    );
    const without = 'governed no-op write, host without resolve';
    const withResolve = 'governed no-op write, Node host (resolve)';
    const lstats = 'lstatSync of its 2 components';
    const resolution: BenchCase[] = [
      { name: without, run: call(lexical, 'no_write') },
      { name: withResolve, run: call(resolving, 'no_write') },
      { name: 'host.resolve of its target alone', run: () => host.resolve(target) },
      { name: lstats, run: () => components.map((component) => lstatSync(component)) },
    ];
    const rows = await bench(resolution, { title: 'the same resolution without the write (goal: the first two rows ≤ 5 µs apart)', batch: 2000, rounds: 30 });
    const median = (name: string): number => (rows.find((row: BenchRow) => row.name === name) as BenchRow).medianNs;
    const cpu = await cpuTimes(resolution, { batch: 2000 });
    const cpuOf = (name: string): number => cpu.get(name) ?? Number.NaN;
    checkGoal('resolution on a governed write, wall (no-op pair, difference)', median(withResolve) - median(without), 5_000, 'ns');
    checkGoal('resolution on a governed write, CPU (no-op pair, difference)', cpuOf(withResolve) - cpuOf(without), 5_000, 'ns');
    // What the goal cannot go below: one lstat per component is the resolution's own floor.
    checkGoal('floor of that difference: its 2 lstatSync calls, CPU', cpuOf(lstats), 5_000, 'ns');
    // A governed fs call classifies its target twice: at resolution and again at execution (its real path too when a link moved it).
    const jail = createFsJail({ workspace: host.workspace, scope: 'workspace-write', protectedPaths: ['secrets/**'], hostPaths: [path.join(workspace, '.spill')] });
    const ordinary = path.join(host.workspace, 'notes', 'bench.md');
    const deep = path.join(host.workspace, 'src', 'components', 'forms', 'inputs', 'text-field.tsx');
    const gitConfig = path.join(host.workspace, '.git', 'config');
    const twice = 'the two classifications of a governed call (notes/bench.md)';
    const both: BenchCase = { name: twice, run: () => jail.classify(ordinary) === jail.classify(ordinary) };
    const classifications: BenchCase[] = [
      { name: 'lstatSync of one component', run: () => lstatSync(ordinary) },
      { name: 'classify notes/bench.md', run: () => jail.classify(ordinary) },
      { name: 'classify a 6-component source path', run: () => jail.classify(deep) },
      { name: 'classify .git/config (protected)', run: () => jail.classify(gitConfig) },
      both,
    ];
    const classified = await bench(classifications, { title: 'the protected-path classifier (goal: ≤ 2 µs for the two a governed fs call runs)', batch: 10_000, rounds: 30 });
    checkGoal('protected-path classifier, two per governed fs call, wall', (classified.find((row) => row.name === twice) as BenchRow).medianNs, 2_000, 'ns');
    checkGoal('protected-path classifier, two per governed fs call, CPU', (await cpuTimes([both], { batch: 10_000 })).get(twice) ?? Number.NaN, 2_000, 'ns');
  } finally {
    await host.close();
  }
}

/**
 * The walk each sandboxed spawn makes to find the workspace's protected
 * files, on this repository's own tree with its `node_modules` (the mask
 * walk follows it when it is a link to a folder outside; the bare walk adds
 * its real path), against a bare `readdir` walk of the same folders: a first walk (every
 * folder read and every entry classified) and the walk of each later spawn,
 * which reads again only the folders that changed (an `lstat` per folder).
 */
async function benchMaskWalk(): Promise<void> {
  const roots = [path.resolve('.'), realpathSync('node_modules')].filter((root, index, all) => all.indexOf(root) === index);
  const jails = [createFsJail({ workspace: path.resolve('.'), scope: 'workspace-write', protectedPaths: [], hostPaths: [] })];
  const limit = { entries: 1_000_000, milliseconds: 60_000 };
  const finders = jails.map((jail) => createProtectedFileFinder(jail));
  const entries = finders.reduce((sum, find) => {
    const found = find(limit);
    return sum + (found.kind === 'found' ? found.entries : 0);
  }, 0);
  const bare = (): number => {
    let count = 0;
    for (const root of roots) {
      const folders = [root];
      for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
        for (const entry of readdirSync(folder, { withFileTypes: true })) {
          count += 1;
          if (entry.isDirectory() && entry.name !== '.git') folders.push(path.join(folder, entry.name));
        }
      }
    }
    return count;
  };
  await bench(
    [
      { name: `readdir walk alone (${entries} entries)`, run: bare },
      { name: 'first mask walk (every folder read and classified)', run: () => jails.map((jail) => createProtectedFileFinder(jail)(limit)) },
      { name: 'mask walk of a later spawn (unchanged folders cached)', run: () => finders.map((find) => find(limit)) },
    ],
    { title: "the sandbox's per-spawn mask walk on this repository and its node_modules", batch: 1, rounds: 10, warmup: 2 },
  );
}
