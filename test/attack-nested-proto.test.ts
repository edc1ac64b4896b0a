import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { CLI } from './support/spawn-cli.js';

// A hostile model against an argument target nested in an options object (`/options/path`), through
// `toolgate serve --stdio` and the SDK client, with an upstream that copies the options with Object.assign
// before it reads the path. The floor judges the path the arguments hold; a path they leave absent beside a
// `__proto__` member would reach the upstream unjudged, as the prototype of its copy.

const MERGING = join(ROOT, 'test/__fixtures__/merging-server.mjs');
const SECRET = 'outside-the-workspace-do-not-leak';

let client: Client;
let outside: string;

beforeAll(async () => {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-proto-')));
  outside = join(realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-proto-outside-'))), 'secret.txt');
  writeFileSync(outside, SECRET);
  writeFileSync(join(workspace, 'notes.md'), 'inside\n');
  const config = join(workspace, 'toolgate.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      // Trusted and read-only: the tool runs without a person, and its target is the floor's alone to judge.
      servers: { cfg: { command: process.execPath, args: [MERGING], trust: 'annotations', targets: { read_config: { path: '/options/path' } } } },
      console: { enabled: false },
    }),
  );
  client = new Client({ name: 'proto-attacker', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', config, 'serve', '--stdio'], cwd: workspace, stderr: 'ignore' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
});

/** The result's text, and whether it is an error: a tool error, or the request refused as invalid. */
const call = async (args: unknown): Promise<{ isError?: boolean; text: string }> => {
  let result: { isError?: boolean; content: { text?: string }[] };
  try {
    result = (await client.callTool({ name: 'mcp_cfg_read_config', arguments: args as Record<string, unknown> })) as typeof result;
  } catch (error) {
    if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number)) return { isError: true, text: error.message };
    throw error;
  }
  return { ...(result.isError === undefined ? {} : { isError: result.isError }), text: result.content.map((block) => block.text ?? '').join('\n') };
};

describe('an argument target nested in an options object', () => {

  it('control: a path inside the workspace is read; one outside is refused by the floor', async () => {
    expect((await call({ options: { path: 'notes.md' } })).text).toContain('inside');
    const refused = await call({ options: { path: outside } });
    expect(refused.isError).toBe(true);
    expect(refused.text).not.toContain(SECRET);
  });

  it.each([
    ['left absent in the options, under their __proto__', '{"options":{"__proto__":{"path":"OUTSIDE"}}}'],
    ['left absent in the options, under their __proto__, beside another member', '{"options":{"encoding":"utf8","__proto__":{"path":"OUTSIDE"}}}'],
    ['left absent, under a __proto__ in place of the options', '{"__proto__":{"options":{"path":"OUTSIDE"}}}'],
    // A recursive merge would write this into every object's prototype, for this call and every later one.
    ['under constructor.prototype in the options', '{"options":{"constructor":{"prototype":{"path":"OUTSIDE"}}}}'],
    ['in the options, beside a __proto__ deep in another member', '{"options":{"path":"notes.md"},"extra":[{"a":{"__proto__":{"path":"OUTSIDE"}}}]}'],
  ])('held: a path %s is refused before the upstream reads anything', async (_label, json) => {
    const outcome = await call(JSON.parse(json.replace('OUTSIDE', outside.replaceAll('\\', '\\\\'))));
    expect(outcome.text).not.toContain(SECRET);
    expect(outcome.isError).toBe(true);
  });

  it('after them, a call that leaves the path absent reads nothing outside the workspace', async () => {
    const outcome = await call({ options: {} });
    expect(outcome.text).not.toContain(SECRET);
  });
});
