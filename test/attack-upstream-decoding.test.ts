import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

// A hostile model against an argument target (`/options/path`), through `toolgate serve --stdio` and the SDK
// client, with upstreams that decode their arguments otherwise than the floor reads them: one as Go's
// encoding/json does (a member name matches up to case, the last match wins), one as Python's FastMCP does
// (a string sent for an argument that is not text is parsed as JSON). The floor judges the member named exactly,
// inside objects; a member spelled like it up to case, or one inside a string, would reach the upstream unjudged.

const FOLDING = join(ROOT, 'test/__fixtures__/case-folding-server.mjs');
const JSON_STRING = join(ROOT, 'test/__fixtures__/json-string-server.mjs');
const SECRET = 'outside-the-workspace-do-not-leak';

let client: Client;
let outside: string;

beforeAll(async () => {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-decoding-')));
  outside = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-decoding-outside-'))), 'secret.txt');
  writeFileSync(outside, SECRET);
  writeFileSync(join(workspace, 'notes.md'), 'inside\n');
  const config = join(workspace, 'toolgate.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      // Trusted and read-only: the tool runs without a person, and its target is the floor's alone to judge.
      servers: {
        go: { command: process.execPath, args: [FOLDING], trust: 'annotations', targets: { read_file: { path: '/options/path' } } },
        py: { command: process.execPath, args: [JSON_STRING], trust: 'annotations', targets: { read_file: { path: '/options/path' }, read_files: { paths: '/paths' } } },
      },
      console: { enabled: false },
    }),
  );
  client = new Client({ name: 'case-attacker', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', config, 'serve', '--stdio'], cwd: workspace, stderr: 'ignore' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
});

const call = async (args: Record<string, unknown>, name = 'mcp_go_read_file'): Promise<{ isError?: boolean; text: string }> => {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text?: string }[] };
  return { ...(result.isError === undefined ? {} : { isError: result.isError }), text: result.content.map((block) => block.text ?? '').join('\n') };
};

describe('an argument target an upstream matches up to case', () => {
  it('control: a path inside the workspace is read; one outside is refused by the floor', async () => {
    expect((await call({ options: { path: 'notes.md' } })).text).toContain('inside');
    const refused = await call({ options: { path: outside } });
    expect(refused.isError).toBe(true);
    expect(refused.text).not.toContain(SECRET);
  });

  it.each([
    ['after the judged one, in another case', () => ({ options: { path: 'notes.md', PATH: outside } })],
    ['in place of the judged one', () => ({ options: { Path: outside } })],
    ['under options spelled in another case', () => ({ options: { path: 'notes.md' }, OPTIONS: { path: outside } })],
  ])('held: a path %s is refused before the upstream reads anything', async (_label, args) => {
    const outcome = await call(args());
    expect(outcome.text).not.toContain(SECRET);
    expect(outcome.isError).toBe(true);
  });
});

describe('an argument target inside a member an upstream parses as JSON text', () => {
  it('control: options as an object are read', async () => {
    expect((await call({ options: { path: 'notes.md' } }, 'mcp_py_read_file')).text).toContain('inside');
  });

  it('control: paths as a path or a list are read', async () => {
    expect((await call({ paths: 'notes.md' }, 'mcp_py_read_files')).text).toContain('inside');
    expect((await call({ paths: ['notes.md'] }, 'mcp_py_read_files')).text).toContain('inside');
  });

  it('held: paths sent as a string of a JSON list are refused before the upstream reads anything', async () => {
    const outcome = await call({ paths: JSON.stringify([outside]) }, 'mcp_py_read_files');
    expect(outcome.text).not.toContain(SECRET);
    expect(outcome.isError).toBe(true);
  });

  it('held: options sent as a string of JSON are refused before the upstream reads anything', async () => {
    const outcome = await call({ options: JSON.stringify({ path: outside }) }, 'mcp_py_read_file');
    expect(outcome.text).not.toContain(SECRET);
    expect(outcome.isError).toBe(true);
  });
});
