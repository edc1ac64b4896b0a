import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace, OUTSIDE_SECRET as SECRET } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// A hostile model against argument targets nested in an options object (`/options/path`), through
// `toolgate serve --stdio` and the SDK client, with upstreams that decode their arguments otherwise than the
// floor reads them: one copies the options with Object.assign (a `__proto__` member becomes the copy's
// prototype), one decodes as Go's encoding/json does (a member name matches up to case, the last match wins),
// one as Python's FastMCP does (a string sent for an argument that is not text is parsed as JSON). The floor
// judges the member named exactly, inside objects; anything else would reach the upstream unjudged.

const MERGING = join(ROOT, 'test/__fixtures__/merging-server.mjs');
const FOLDING = join(ROOT, 'test/__fixtures__/case-folding-server.mjs');
const JSON_STRING = join(ROOT, 'test/__fixtures__/json-string-server.mjs');

let client: Client;
let outside: string;

beforeAll(async () => {
  // Trusted and read-only: each tool runs without a person, and its target is the floor's alone to judge.
  const served = attackWorkspace('toolgate-attack-decoding', {
    cfg: { command: process.execPath, args: [MERGING], trust: 'annotations', targets: { read_config: { path: '/options/path' } } },
    go: { command: process.execPath, args: [FOLDING], trust: 'annotations', targets: { read_file: { path: '/options/path' } } },
    py: { command: process.execPath, args: [JSON_STRING], trust: 'annotations', targets: { read_file: { path: '/options/path' }, read_files: { paths: '/paths' } } },
  });
  outside = served.outside;
  client = new Client({ name: 'decoding-attacker', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, '-c', served.config, 'serve', '--stdio'], cwd: served.workspace, stderr: 'ignore' }));
}, 30_000);

afterAll(async () => {
  await client?.close();
});

/** The result's text, and whether it is an error: a tool error, or the request refused as invalid. */
const call = async (args: Record<string, unknown>, name = 'mcp_go_read_file'): Promise<{ isError?: boolean; text: string }> => {
  let result: { isError?: boolean; content: { text?: string }[] };
  try {
    result = (await client.callTool({ name, arguments: args })) as typeof result;
  } catch (error) {
    if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number)) return { isError: true, text: error.message };
    throw error;
  }
  return { ...(result.isError === undefined ? {} : { isError: result.isError }), text: result.content.map((block) => block.text ?? '').join('\n') };
};

describe('an argument target nested in an options object an upstream copies with Object.assign', () => {
  it('control: a path inside the workspace is read; one outside is refused by the floor', async () => {
    expect((await call({ options: { path: 'notes.md' } }, 'mcp_cfg_read_config')).text).toContain('inside');
    const refused = await call({ options: { path: outside } }, 'mcp_cfg_read_config');
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
    const outcome = await call(JSON.parse(json.replace('OUTSIDE', outside.replaceAll('\\', '\\\\'))) as Record<string, unknown>, 'mcp_cfg_read_config');
    expect(outcome.text).not.toContain(SECRET);
    expect(outcome.isError).toBe(true);
  });

  it('after them, a call that leaves the path absent reads nothing outside the workspace', async () => {
    const outcome = await call({ options: {} }, 'mcp_cfg_read_config');
    expect(outcome.text).not.toContain(SECRET);
  });
});

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
    // The model is told which target and why, in words that quote no value.
    expect(outcome.text).toContain('its target servers.go.targets.read_file.path cannot be read from arguments that also hold a member named like it up to case');
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
