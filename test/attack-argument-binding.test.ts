// Runs against the built package (npm test builds first). What a caller's own objects can do to a governed call:
// arguments handed in as objects (not JSON text) through a schema that passes a member through unchanged
// (`z.any()`, `z.unknown()`, a loose object's unknown keys), read again by each stage. Whatever policy judged and
// the approver saw is what the tool body and the Node host get.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPolicy, createToolRegistry, defineTool, type ToolApprovalRequest, type ToolRegistry } from 'toolgate';
import { createNodeHost, type NodeHost } from 'toolgate/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';

const GIT_CONFIG = '[core]\n\tbare = false\n';

let workspace: string;
let host: NodeHost;
let written: string[];

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-attack-binding-')));
  mkdirSync(join(workspace, '.git'));
  mkdirSync(join(workspace, 'docs'));
  writeFileSync(join(workspace, '.git', 'config'), GIT_CONFIG);
  host = createNodeHost({ workspace, scope: 'workspace-write', sandbox: 'off' });
  written = [];
});

afterEach(async () => {
  await host.close();
  rmSync(workspace, { recursive: true, force: true });
});

/** A note tool whose path sits under a member the schema passes through; `judged` records what policy read. */
function noteRegistry(input: z.ZodType<{ note?: unknown }>, judged: string[] = []): ToolRegistry {
  const writeNote = defineTool({
    name: 'write_note',
    description: 'Write a note.',
    input,
    policy: { fsWrite: true },
    policyTarget: (args) => {
      const path = String((args.note as { path: unknown }).path);
      judged.push(path);
      return { path };
    },
    dispatch: async (args, toolHost, context) => {
      const path = String((args.note as { path: unknown }).path);
      written.push(path);
      await toolHost.fs!.writeFile(path, 'pwned\n', {}, context.signal);
      return path;
    },
  });
  return createToolRegistry({ tools: [writeNote], host, policy: createPolicy({ scope: 'workspace-write', mode: 'auto' }) });
}

const SCHEMAS = {
  'z.any()': z.object({ note: z.any() }),
  'z.unknown() behind a refinement': z.object({ note: z.unknown() }).refine(() => true),
  'a loose object': z.looseObject({ title: z.string().optional() }).transform((args) => args as { note?: unknown }),
} as const;

describe('attack: a getter shows the approver one path and the body another', () => {
  for (const [label, schema] of Object.entries(SCHEMAS)) {
    it(`${label}: the note the person approved for docs/a.md is written there, never to .git/config`, async () => {
      let approved = false;
      const note = {
        get path(): string {
          return approved ? '.git/config' : 'docs/a.md';
        },
      };
      const seen: ToolApprovalRequest[] = [];
      const outcome = await noteRegistry(schema).dispatch(
        { callId: 'c1', name: 'write_note', arguments: { note } },
        {
          grantedTools: ['write_note'],
          approval: {
            confirm: (request) => {
              seen.push(request);
              approved = true;
              return Promise.resolve({ outcome: 'approve' as const });
            },
          },
        },
      );
      expect(seen.map((request) => request.target)).toEqual([expect.objectContaining({ files: [expect.objectContaining({ path: 'docs/a.md' })] })]);
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('OK');
      expect(written).toEqual(['docs/a.md']);
      expect(outcome.receipt.arguments).toEqual({ note: { path: 'docs/a.md' } });
      expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
    });
  }

  it('without an approval regime the guardrail judges the path the body then writes: a getter read once', async () => {
    const judged: string[] = [];
    let reads = 0;
    const note = {
      get path(): string {
        reads += 1;
        return reads === 1 ? 'docs/a.md' : '.git/config';
      },
    };
    for (const schema of Object.values(SCHEMAS)) {
      judged.length = 0;
      written.length = 0;
      reads = 0;
      const outcome = await noteRegistry(schema, judged).dispatch({ callId: 'c2', name: 'write_note', arguments: { note } }, { grantedTools: ['write_note'] });
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('OK');
      expect(written).toEqual(judged);
    }
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('a proxy answering every read with another path is judged and run as one value', async () => {
    const judged: string[] = [];
    let reads = 0;
    const note = new Proxy({ path: 'docs/a.md' }, { get: () => `docs/n${(reads += 1)}.md` });
    for (const schema of Object.values(SCHEMAS)) {
      judged.length = 0;
      written.length = 0;
      const outcome = await noteRegistry(schema, judged).dispatch({ callId: 'c3', name: 'write_note', arguments: { note } }, { grantedTools: ['write_note'] });
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('OK');
      expect(written).toEqual(judged);
    }
  });
});

describe('attack: a value whose JSON form is not what the body reads', () => {
  it('a toJSON, a class instance or a bigint under z.any() is refused before policy, whatever approval was given', async () => {
    class Note {
      readonly path = '.git/config';
      toJSON(): unknown {
        return { path: 'docs/a.md' };
      }
    }
    const registry = noteRegistry(SCHEMAS['z.any()']);
    const context = { grantedTools: ['write_note'], approval: { confirm: () => Promise.resolve({ outcome: 'approve' as const }) } };
    for (const note of [new Note(), { path: '.git/config', toJSON: () => ({ path: 'docs/a.md' }) }, { path: 'docs/a.md', size: 1n }]) {
      const outcome = await registry.dispatch({ callId: 'c4', name: 'write_note', arguments: { note } }, context);
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ARGS_INVALID');
    }
    expect(written).toEqual([]);
    expect(readFileSync(join(workspace, '.git', 'config'), 'utf8')).toBe(GIT_CONFIG);
  });

  it('a getter or a proxy trap that throws, or an array length no array has, is ARGS_INVALID, not a rejected dispatch', async () => {
    const registry = noteRegistry(SCHEMAS['z.any()']);
    const throwing = (): never => {
      throw new Error('boom: .git/config');
    };
    const notes = [
      {
        get path(): string {
          return throwing();
        },
      },
      new Proxy({}, { ownKeys: throwing }),
      new Proxy({}, { getPrototypeOf: throwing }),
      new Proxy([], { get: (target, key) => (key === 'length' ? -1 : Reflect.get(target, key)) }),
      new Proxy([], { get: (target, key) => (key === 'length' ? 1.5 : Reflect.get(target, key)) }),
    ];
    for (const note of notes) {
      const outcome = await registry.dispatch({ callId: 'c5', name: 'write_note', arguments: { note } }, { grantedTools: ['write_note'] });
      expect(outcome.ok ? 'OK' : outcome.error.code).toBe('ARGS_INVALID');
      expect(outcome.ok ? '' : outcome.error.message).not.toContain('boom');
    }
    expect(written).toEqual([]);
  });

  it("an array whose length costs the caller nothing (sparse, or a proxy's) is refused at once, whatever the schema", async () => {
    const schemas = { ...SCHEMAS, 'z.array()': z.object({ note: z.array(z.string()) }), 'JSON Schema': { type: 'object', properties: { note: { type: 'array', items: { type: 'string' } } } } };
    const sparse: unknown[] = [];
    sparse.length = 2 ** 32 - 1;
    const proxied = new Proxy([], { get: (target, key) => (key === 'length' ? 2 ** 40 : Reflect.get(target, key)) });
    for (const [label, input] of Object.entries(schemas)) {
      const registry = noteRegistry(input as z.ZodType<{ note?: unknown }>);
      for (const note of [sparse, proxied, { deeper: [sparse] }]) {
        const started = Date.now();
        const outcome = await registry.dispatch({ callId: 'c6', name: 'write_note', arguments: { note } }, { grantedTools: ['write_note'] });
        // Before, each item was walked: a billion of them kept the dispatch busy until the heap ran out.
        expect({ label, code: outcome.ok ? 'OK' : outcome.error.code, fast: Date.now() - started < 1000 }).toEqual({ label, code: 'ARGS_INVALID', fast: true });
      }
    }
    expect(written).toEqual([]);
  });
});
