import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './fixtures/mcp/helpers.js';
import { attackWorkspace, OUTSIDE_SECRET as SECRET } from './support/attack-workspace.js';
import { CLI } from './support/spawn-cli.js';

// The nested-__proto__ attack of attack-upstream-decoding.test.ts in spellings an SDK client never sends, written as
// raw JSON lines to `toolgate serve --stdio`: a key escaped into "__proto__", and duplicate keys, whose last value
// JSON.parse keeps. The upstream (merging-server.mjs) copies the options with Object.assign before it reads the path.

const MERGING = join(ROOT, 'test/__fixtures__/merging-server.mjs');

let child: ChildProcessWithoutNullStreams;
let outside: string;
const answers = new Map<number, (message: Record<string, unknown>) => void>();
let next = 1;

/** Send one raw line as request `id` (the text holds `ID`), and the answer to it. */
const send = (line: string): Promise<Record<string, unknown>> => {
  const id = (next += 1);
  const answered = new Promise<Record<string, unknown>>((resolve) => answers.set(id, resolve));
  child.stdin.write(`${line.replace('"ID"', String(id))}\n`);
  return answered;
};

const call = (argumentsJson: string): Promise<Record<string, unknown>> =>
  send(`{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"mcp_cfg_read_config","arguments":${argumentsJson.replace('OUTSIDE', JSON.stringify(outside).slice(1, -1))}}}`);

beforeAll(async () => {
  const served = attackWorkspace('toolgate-attack-spell', {
    cfg: { command: process.execPath, args: [MERGING], trust: 'annotations', targets: { read_config: { path: '/options/path' } } },
  });
  outside = served.outside;
  child = spawn(process.execPath, [CLI, '-c', served.config, 'serve', '--stdio'], { cwd: served.workspace });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    if (typeof message.id === 'number') answers.get(message.id)?.(message);
  });
  const initialized = await send('{"jsonrpc":"2.0","id":"ID","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}');
  expect(initialized.result).toBeDefined();
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
}, 30_000);

afterAll(() => {
  child?.kill();
});

describe('the nested __proto__ attack in raw spellings', () => {
  it('control: the options path is read as sent', async () => {
    expect(JSON.stringify(await call('{"options":{"path":"notes.md"}}'))).toContain('inside');
  });

  it.each([
    ['a key escaped into __proto__ in the options', '{"options":{"\\u005f_proto\\u005f_":{"path":"OUTSIDE"}}}'],
    ['a key escaped into __proto__ at the top', '{"\\u005f_proto__":{"options":{"path":"OUTSIDE"}}}'],
    ['a key escaped into constructor, holding prototype', '{"options":{"\\u0063onstructor":{"prototype":{"path":"OUTSIDE"}}}}'],
    ['a __proto__ key given twice, the first with the path', '{"options":{"__proto__":{"path":"OUTSIDE"},"__proto__":{}}}'],
  ])('held: %s is refused before the upstream reads anything', async (_label, json) => {
    const answer = await call(json);
    expect(JSON.stringify(answer)).not.toContain(SECRET);
    expect(answer.error ?? (answer.result as { isError?: boolean }).isError).toBeTruthy();
  });

  it('held: of a path given twice, the upstream gets the one judged, the last', async () => {
    const judged = await call('{"options":{"path":"OUTSIDE","path":"notes.md"}}');
    expect(JSON.stringify(judged)).toContain('inside');
    const refused = await call('{"options":{"path":"notes.md","path":"OUTSIDE"}}');
    expect(JSON.stringify(refused)).not.toContain(SECRET);
    expect((refused.result as { isError?: boolean }).isError).toBe(true);
  });
});
