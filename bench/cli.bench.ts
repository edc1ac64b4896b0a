/**
 * The command line's start: every CLI command is a new process, and an MCP
 * client that spawns `toolgate serve --stdio` waits for it before its first
 * call. Each case starts a real process and waits for it to finish (or, for
 * `serve`, to answer `initialize`), against a bare `node -e 0` in the same
 * rounds. Goal: `toolgate --version` within 2× a bare Node start; a command
 * loads only what it runs.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bench, checkGoal } from './harness.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'dist/cli/bin.js');

function runToExit(args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${String(code)}`))));
  });
}

/** `serve --stdio` until its answer to `initialize`: what a client that spawns the gateway waits for. */
function serveUntilInitialized(cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    child.once('error', reject);
    let seen = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      seen += chunk;
      if (!seen.includes('"id":1')) return;
      child.once('exit', () => resolve());
      child.stdin.end();
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`);
  });
}

export async function run(): Promise<void> {
  const workspace = await mkdtemp(join(tmpdir(), 'toolgate-bench-cli-'));
  await writeFile(join(workspace, 'notes.md'), 'hello\n');
  // The gateway's console and journal are off: the start of the gateway itself is measured, not a port or a file.
  await writeFile(join(workspace, 'toolgate.config.json'), JSON.stringify({ console: { enabled: false } }));
  const rows = await bench(
    [
      { name: 'node -e 0 (bare start)', run: () => runToExit(['-e', '0'], workspace) },
      { name: 'toolgate --version', run: () => runToExit([bin, '--version'], workspace) },
      { name: 'toolgate policy check', run: () => runToExit([bin, 'policy', 'check'], workspace) },
      { name: 'toolgate call read_file', run: () => runToExit([bin, 'call', 'read_file', '{"path":"notes.md"}'], workspace) },
      { name: 'toolgate serve --stdio to initialize', run: () => serveUntilInitialized(workspace) },
    ],
    { title: 'CLI start: one process per operation', batch: 1, rounds: 10, warmup: 1 },
  );
  const ratio = (name: string): number => rows.find((row) => row.name === name)?.ratio ?? Number.NaN;
  checkGoal('toolgate --version vs a bare node start', ratio('toolgate --version'), 2, '×');
}
