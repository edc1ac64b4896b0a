import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRegistry, unwrapUntrusted, type PolicyDecision, type ToolPolicy } from '../../core/internal.js';
import { createNodeHost } from '../create-node-host.js';
import { readFileTool, renderFileRead } from './read-file-tool.js';

const allow: PolicyDecision = { kind: 'allow', matched: [] };
const allowAll: ToolPolicy = { version: 1, decideIdentity: () => allow, decideArguments: () => allow };

describe('renderFileRead', () => {
  it('writes the facts as one JSON line, then the text as it is', () => {
    const text = 'a "quoted" line\n\tand \\ a backslash\n';
    expect(renderFileRead({ content: text, bytes: 36, partial: false, sha256: 'ab' })).toBe(`{"bytes":36,"partial":false,"sha256":"ab"}\n${text}`);
  });

  it('renders a binary file as its JSON, media handle included', () => {
    const read = { media: { handle: 'media:sha256:00', mediaType: 'image/png', bytes: 4 }, bytes: 4, partial: false };
    expect(renderFileRead(read)).toBe(JSON.stringify(read));
  });
});

describe('read_file through the pipeline', () => {
  let workspace: string;
  beforeEach(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), 'toolgate-read-file-'));
  });
  afterEach(() => rm(workspace, { recursive: true, force: true }));

  it('gives the model the text unescaped, the value as the file read, and a cut preview that still begins with the facts', async () => {
    const host = createNodeHost({ workspace, sandbox: 'off' });
    try {
      const registry = createToolRegistry({ tools: [readFileTool], host, policy: allowAll });
      const text = 'say "hi"\n'.repeat(1000);
      await writeFile(path.join(workspace, 'a.txt'), text);
      const whole = await registry.dispatch({ callId: 'a', name: 'read_file', arguments: { path: 'a.txt' } }, { grantedTools: ['read_file'], limits: { maxBytes: 1 << 20 } });
      const value = whole.ok ? (whole.value as { content: string; sha256: string }) : undefined;
      expect(value?.content).toBe(text);
      expect(unwrapUntrusted(whole.content)).toBe(`{"bytes":${text.length},"partial":false,"sha256":"${value?.sha256 ?? ''}"}\n${text}`);
      const cut = await registry.dispatch({ callId: 'b', name: 'read_file', arguments: { path: 'a.txt' } }, { grantedTools: ['read_file'], runId: 'r', limits: { maxBytes: 500 } });
      const preview = unwrapUntrusted(cut.content);
      expect(preview.startsWith(`{"bytes":${text.length},"partial":false,"sha256":"${value?.sha256 ?? ''}"}\nsay "hi"\n`)).toBe(true);
      const handle = /spill:[A-Za-z0-9._-]+\/[0-9a-f]+/.exec(preview)?.[0] ?? '';
      expect(await host.outputStore.read(handle)).toBe(unwrapUntrusted(whole.content));
    } finally {
      await host.close();
    }
  });
});
