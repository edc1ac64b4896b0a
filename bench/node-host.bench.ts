/**
 * The Node host against the bare Node calls it wraps, in one process run:
 * run_command `true` vs child_process.spawn; http_request to a loopback TLS
 * server in its own process (through the injected test resolver and
 * connector) vs a raw undici request; read_file of 1 MB vs fs.readFile.
 * Every host case goes through the full registry pipeline (grant,
 * validation, policy, bounding).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { createToolRegistry, type PolicyDecision, type ToolPolicy } from 'toolgate';
import { builtinTools, createNodeHost } from 'toolgate/node';
import { Agent, request } from 'undici';
import { bench } from './harness.js';

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
  const dispatch = async (name: string, args: unknown): Promise<void> => {
    const outcome = await registry.dispatch({ callId: String((callId += 1)), name, arguments: args }, context);
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
    await bench(
      [
        { name: 'fs.readFile 1 MB', run: () => readFile(path.join(workspace, 'one-mb.txt'), 'utf8') },
        { name: 'host.fs.readFile 1 MB (capability only)', run: () => host.fs.readFile('one-mb.txt') },
        { name: 'read_file 1 MB (through the pipeline)', run: () => dispatch('read_file', { path: 'one-mb.txt' }) },
      ],
      { title: 'read_file vs fs.readFile', batch: 20, rounds: 20, warmup: 3 },
    );
  } finally {
    await rawAgent.close();
    await host.close();
    server.child.stdin?.end();
    await rm(workspace, { recursive: true, force: true });
  }
}
