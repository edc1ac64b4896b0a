import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from './support/spawn-cli.js';

const folders: string[] = [];

/**
 * Preloaded with `node --import`: a module hook that appends every module URL the process loads (ES modules, and
 * the CommonJS ones an ES module imports) to `record`, one a line.
 */
function recorder(record: string): string {
  const hook = `import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(${JSON.stringify(record)}, url + '\\n');
  return next(url, context);
}`;
  return `import { register } from 'node:module';\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});\n`;
}

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Run the built CLI and return what it printed and every module URL the process loaded. */
function loadedBy(args: readonly string[], config?: object): { status: number | null; stdout: string; loaded: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-start-'));
  folders.push(dir);
  writeFileSync(join(dir, 'notes.md'), 'hello\n');
  if (config !== undefined) writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify(config));
  const record = join(dir, 'loaded.txt');
  writeFileSync(record, '');
  writeFileSync(join(dir, 'recorder.mjs'), recorder(record));
  const run = spawnSync(process.execPath, ['--import', join(dir, 'recorder.mjs'), CLI, ...args], { cwd: dir, env: process.env, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, loaded: readFileSync(record, 'utf8').split('\n').filter((line) => line !== '') };
}

const from = (loaded: readonly string[], part: string): string[] => loaded.filter((url) => url.includes(part));

/** The executable's files (its entry and the chunks the build bundled it into) whose code matches `code`, as URLs; never none. */
function holding(code: RegExp): string[] {
  const chunks = join(dirname(CLI), 'chunks');
  const files = [CLI, ...readdirSync(chunks).filter((file) => file.endsWith('.js')).map((file) => join(chunks, file))];
  const found = files.filter((file) => code.test(readFileSync(file, 'utf8'))).map((file) => pathToFileURL(file).href);
  expect(found, String(code)).not.toEqual([]);
  return found;
}

/** The loaded files that declare the function `name`. */
const loadedDeclaring = (loaded: readonly string[], name: string): string[] => loaded.filter((url) => holding(new RegExp(`\\bfunction ${name}\\(`)).includes(url));

/** The loaded files that hold the MCP SDK (bundled into the executable: its protocol class) or zod (its constructor of schema types). */
const loadedSdk = (loaded: readonly string[]): string[] => [...from(loaded, '@modelcontextprotocol'), ...loaded.filter((url) => holding(/\bvar Protocol = class\b/).includes(url))];
const loadedZod = (loaded: readonly string[]): string[] => [...from(loaded, '/node_modules/zod/'), ...loaded.filter((url) => holding(/\bfunction \$constructor\(/).includes(url))];
/** The loaded files that hold ajv (bundled into the executable: its compiler class). */
const loadedAjv = (loaded: readonly string[]): string[] => [...from(loaded, '/node_modules/ajv/'), ...loaded.filter((url) => holding(/\bvar Ajv = class \{/).includes(url))];

// Every command is a process of its own, and an MCP client waits for `serve` before its first call: each loads the
// modules it runs, not the whole product. The executable is bundled into chunks, so what a command loads of the
// project, and of the packages bundled with it, is told by what its loaded chunks declare.
describe('what a command loads', () => {
  it('--version and --help load the program alone: not the engine, the host or the configuration schema', () => {
    for (const args of [['--version'], ['--help'], ['audit', '--help']]) {
      const run = loadedBy(args);
      expect(run.status).toBe(0);
      for (const command of ['runAuditVerify', 'runServe', 'runCall', 'runInit']) expect(loadedDeclaring(run.loaded, command), command).toEqual([]);
      // The error type and the terminal's escaping, which every command prints through, and nothing else of the engine.
      expect(loadedDeclaring(run.loaded, 'createToolRegistry')).toEqual([]);
      expect(loadedDeclaring(run.loaded, 'createNodeHost')).toEqual([]);
      expect(loadedAjv(run.loaded)).toEqual([]);
      expect(loadedDeclaring(run.loaded, 'buildProgram')).toHaveLength(1);
    }
  });

  it('audit verify reads the journal without the host, the MCP SDK or the HTTP client', () => {
    const run = loadedBy(['audit', 'verify'], { scope: 'read-only' });
    expect(loadedDeclaring(run.loaded, 'runAuditVerify')).toHaveLength(1);
    expect(loadedDeclaring(run.loaded, 'createNodeHost')).toEqual([]);
    expect(loadedSdk(run.loaded)).toEqual([]);
    expect(from(run.loaded, '/node_modules/undici/')).toEqual([]);
  });

  it('a call with no upstream server runs without the MCP SDK, zod, the HTTP client, the diff library or the YAML parser', () => {
    const run = loadedBy(['--json', 'call', 'read_file', '{"path":"notes.md"}'], { scope: 'read-only' });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, value: { content: 'hello\n' } });
    expect(loadedDeclaring(run.loaded, 'createNodeHost')).toHaveLength(1);
    expect(loadedSdk(run.loaded)).toEqual([]);
    expect(loadedZod(run.loaded)).toEqual([]);
    for (const upstream of ['openUpstream', 'callUpstream', 'serveMcp']) expect(loadedDeclaring(run.loaded, upstream), upstream).toEqual([]);
    expect(from(run.loaded, '/node_modules/undici/')).toEqual([]);
    expect(from(run.loaded, '/node_modules/diff/')).toEqual([]);
    // The configuration is JSON: the YAML parser loads with a YAML one alone.
    expect(from(run.loaded, '/node_modules/yaml/')).toEqual([]);
  });
});

// ajv is bundled into the executable, and with it the meta-schemas of each draft it compiles, which it reads by name.
describe('the executable’s own ajv', () => {
  it('checks and compiles an upstream tool’s JSON Schema 2020-12 and judges the calls by it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-draft-2020-'));
    folders.push(dir);
    const server = join(dirname(CLI), '../../test/fixtures/mcp/draft-2020-server.mjs');
    writeFileSync(join(dir, 'toolgate.config.json'), JSON.stringify({ scope: 'read-only', servers: { d: { command: process.execPath, args: [server], trust: 'annotations' } } }));
    const call = (args: object): unknown => JSON.parse(spawnSync(process.execPath, [CLI, '--json', 'call', 'mcp_d_greet', JSON.stringify(args)], { cwd: dir, env: { ...process.env, HOME: dir }, encoding: 'utf8' }).stdout);
    expect(call({ who: 'bob', pair: ['a', 1] })).toMatchObject({ ok: true, content: 'hello bob' });
    // Refused by the tool's own schema, as 2020-12 reads it: the second item of the pair must be an integer.
    expect(call({ who: 'bob', pair: ['a', 'b'] })).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID', message: expect.stringContaining('pair') } });
    expect(call({ who: '' })).toMatchObject({ ok: false, error: { code: 'ARGS_INVALID' } });
  });
});

// Installed by pnpm (or any installer that hoists nothing), a package reaches only the packages it declares: one the
// bundled MCP SDK imports in its own name (ajv-formats, cross-spawn) is not there, and `serve` did not start.
describe('the executable', () => {
  it('imports no package toolgate does not declare', () => {
    const manifest = JSON.parse(readFileSync(join(dirname(CLI), '../../package.json'), 'utf8')) as { dependencies: object; peerDependencies: object };
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    const chunks = join(dirname(CLI), 'chunks');
    const files = [CLI, ...readdirSync(chunks).filter((file) => file.endsWith('.js')).map((file) => join(chunks, file))];
    const imported = files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/(?:^|\n)(?:import|export)\b[^;'"]*?(?:from\s*)?["']([^"'./][^"']*)["']|\b(?:import|__require)\(\s*["']([^"'./][^"']*)["']\s*\)/g)].map((match) => match[1] ?? match[2] ?? ''));
    const packages = imported.map((id) => /^(@[^/]+\/[^/]+|[^/]+)/.exec(id)?.[1] ?? id).filter((name) => !name.startsWith('node:') && !builtinModules.includes(name));
    expect(packages.length).toBeGreaterThan(0);
    expect([...new Set(packages.filter((name) => !declared.has(name)))].sort()).toEqual([]);
  });
});
