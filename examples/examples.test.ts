import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './build-once.js';

const run = promisify(execFile);

async function runExample(file: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, [`examples/${file}`], { cwd: root, timeout: 15_000 });
  return stdout.trim().split('\n');
}

beforeAll(() => ensureBuilt(), 120_000);

describe('adapter examples', () => {
  it('ai-sdk.mjs: approves one write through the AI SDK flow, denies the next, receipts both', async () => {
    expect(await runExample('ai-sdk.mjs')).toEqual([
      'approval: write_note {"path":"notes/a.txt","text":"hello"} -> approved',
      'receipt: call-1 ok OK',
      'approval: write_note {"path":"notes/b.txt","text":"again"} -> denied',
      'receipt: call-2 denied DENIED_BY_USER',
      'model: Done.',
      'files: notes/a.txt',
    ]);
  });

  it('openai-agents.mjs: resolves interruptions from the toolgate plan, receipts both', async () => {
    expect(await runExample('openai-agents.mjs')).toEqual([
      'approval: write_note {"path":"notes/a.txt","text":"hello"} (governed action (fs_write)) -> approved',
      'receipt: call-1 ok OK',
      'approval: write_note {"path":"notes/b.txt","text":"again"} (governed action (fs_write)) -> denied',
      'receipt: call-2 denied DENIED_BY_USER',
      'model: Done.',
      'files: notes/a.txt',
    ]);
  });

  it('langchain.mjs: asks through toolgate, returns success and error ToolMessages, receipts both', async () => {
    expect(await runExample('langchain.mjs')).toEqual([
      'approval: write_note notes/a.txt -> approved',
      'receipt: call-1 ok OK',
      'tool message: call-1 success wrote 5 bytes to notes/a.txt',
      'approval: write_note notes/b.txt -> denied',
      'receipt: call-2 denied DENIED_BY_USER',
      'tool message: call-2 error Tool "write_note" was rejected by the approver: declined.',
      'model: Done.',
      'files: notes/a.txt',
    ]);
  });
});
