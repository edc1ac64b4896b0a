import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from '../registry/create-tool-registry.js';
import { defineTool } from '../tools/define-tool.js';
import { renderTypeScriptSdk } from './render-typescript-sdk.js';

// The standard library parses once for every check in this file.
const libraries = new Map<string, ts.SourceFile | undefined>();

/** Type-check `files` in memory with the real compiler; returns the diagnostics as text. */
function typeCheck(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipDefaultLibCheck: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts'], types: [], exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files[name] ?? readFile(name);
  host.fileExists = (name) => name in files || fileExists(name);
  host.getSourceFile = (name, version) => {
    if (name in files) return ts.createSourceFile(name, files[name] as string, version);
    if (!libraries.has(name)) libraries.set(name, getSourceFile(name, version));
    return libraries.get(name);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a UTF-8 text file from the workspace.',
  input: z.object({
    path: z.string().min(1).describe('Workspace-relative path.'),
    encoding: z.enum(['utf8', 'latin1']).optional(),
    range: z.object({ start: z.number().int(), end: z.number().int() }).optional(),
  }),
  output: z.object({ content: z.string(), bytes: z.number(), tags: z.array(z.string()) }),
  dispatch: () => ({ content: '', bytes: 0, tags: [] }),
});

function nest(levels: number): Record<string, unknown> {
  return levels === 0 ? { type: 'string' } : { type: 'object', properties: { inner: nest(levels - 1) } };
}

// Hostile text an upstream (MCP) server might send: comment terminators, odd keys, deep nesting, cycles.
const hostile = defineTool({
  name: 'hostile',
  version: '1.0.0',
  description: 'Ends a comment */ declare const pwned: 1; /* and \u2028 more',
  input: {
    type: 'object',
    properties: {
      'weird key"*/': { type: 'string', description: '*/ }; declare const also: 1; /**' },
      'class': { type: ['string', 'null'], default: 'x */' },
      choice: { enum: ['a', 'b"c', 1, true, null] },
      either: { anyOf: [{ type: 'string' }, { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }] },
      both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'number' } } }] },
      tuple: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] },
      recursive: { $ref: '#' },
      map: { type: 'object', additionalProperties: { type: 'number' } },
      deep: nest(12),
    },
    additionalProperties: true,
  },
  dispatch: () => null,
});

const noArgs = defineTool({ name: 'now', description: 'The time.', input: { type: 'object', properties: {} }, dispatch: () => 1 });

describe('renderTypeScriptSdk', () => {
  const registry = createToolRegistry({ tools: [readFile, hostile, noArgs] });
  const sdk = renderTypeScriptSdk(registry.list());

  it('renders one typed async function per visible tool, with doc comments from descriptions and schemas', () => {
    expect(sdk).toContain('read_file(args: ReadFileInput): Promise<ReadFileOutput>;');
    expect(sdk).toContain('"hostile@1.0.0"(args?: HostileV1_0_0Input): Promise<HostileV1_0_0Output>;');
    expect(sdk).toContain('now(args?: NowInput): Promise<NowOutput>;');
    expect(sdk).toContain(' * Read a UTF-8 text file from the workspace.');
    expect(sdk).toContain(' * @param args.path Workspace-relative path.');
    expect(sdk).toContain('@minLength 1');
    expect(sdk).toMatch(/encoding\?: "utf8" \| "latin1";/);
  });

  it('type-checks with tsc, hostile schemas included', () => {
    expect(typeCheck({ '/sdk.d.ts': sdk })).toEqual([]);
    expect(sdk).not.toMatch(/\*\/ declare const pwned/);
  });

  it('types script calls: good calls compile, wrong argument and result types do not', () => {
    const good = `
      async function main(): Promise<number> {
        const file = await tools.read_file({ path: 'a.txt', range: { start: 1, end: 2 } });
        const first: string | undefined = file.tags[0];
        await tools['hostile@1.0.0']({ choice: 'b"c', either: { n: 1 }, tuple: ['x', 1], map: { a: 1 } });
        await tools.now();
        try { await tools.read_file({ path: 'b' }); } catch (error) { if (error instanceof ToolCallError) return error.code.length; }
        return file.bytes + (first?.length ?? 0);
      }
      export { main };`;
    expect(typeCheck({ '/sdk.d.ts': sdk, '/good.ts': good })).toEqual([]);
    const bad = `
      async function main(): Promise<void> {
        await tools.read_file({ path: 1 });
        await tools.read_file({});
        const text: number = (await tools.read_file({ path: 'x' })).content;
        await tools.read_file({ path: 'x', encoding: 'utf16' });
        await tools.missing_tool({});
      }
      export { main };`;
    const errors = typeCheck({ '/sdk.d.ts': sdk, '/bad.ts': bad });
    expect(errors.length).toBe(5);
  });

  it('is empty but valid for no tools', () => {
    expect(typeCheck({ '/sdk.d.ts': renderTypeScriptSdk([]) })).toEqual([]);
  });
});
