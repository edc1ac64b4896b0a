import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './build-once.js';

const run = promisify(execFile);
const PEERS = new Set(['ai', '@openai', '@langchain']);

/**
 * A copy of the built package installed without any framework: every real
 * dependency is linked in except the optional peers, so importing an
 * adapter subpath meets a genuinely missing package.
 */
let sandbox = '';
beforeAll(() => {
  ensureBuilt();
  sandbox = mkdtempSync(join(tmpdir(), 'toolgate-no-peers-'));
  const app = join(sandbox, 'node_modules', 'toolgate');
  mkdirSync(app, { recursive: true });
  cpSync(join(root, 'dist'), join(app, 'dist'), { recursive: true });
  cpSync(join(root, 'package.json'), join(app, 'package.json'));
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (PEERS.has(entry) || entry === 'toolgate' || entry.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', entry), join(sandbox, 'node_modules', entry));
  }
  writeFileSync(join(sandbox, 'package.json'), JSON.stringify({ name: 'app', type: 'module', private: true }));
}, 120_000);
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

async function importFails(subpath: string): Promise<{ name: string; code: string; message: string }> {
  const script = `import(${JSON.stringify(subpath)}).then(() => console.log('{"name":"loaded"}'), (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: sandbox, timeout: 15_000 });
  return JSON.parse(stdout.trim()) as { name: string; code: string; message: string };
}

describe('importing an adapter without its framework installed', () => {
  it.each([
    ['toolgate/ai-sdk', 'ai', '^6.0.0 || ^7.0.0'],
    ['toolgate/openai-agents', '@openai/agents', '>=0.14.3 <0.21.0'],
    ['toolgate/langchain', '@langchain/core', '^1.4.0'],
  ])('%s fails with a message naming %s', async (subpath, packageName, range) => {
    expect(await importFails(subpath)).toEqual({
      name: 'MissingPeerError',
      code: 'CONFIGURATION_INVALID',
      message: `${subpath} needs the optional peer dependency "${packageName}" (${range}), which is not installed. Install it: npm install ${packageName}`,
    });
  });

  it('the core entry still loads without any framework', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', "import('toolgate').then((m) => console.log(typeof m.createToolRegistry))"], { cwd: sandbox, timeout: 15_000 });
    expect(stdout.trim()).toBe('function');
  });
});
