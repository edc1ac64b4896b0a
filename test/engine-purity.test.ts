import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPlatformGlobals, walkModuleGraph } from './walk-module-graph.js';

const root = resolve(import.meta.dirname, '..');
const entry = join(root, 'dist/core/index.js');

describe('engine purity of the built `toolgate` entry', () => {
  it('dist/ exists (the test command builds first)', () => {
    expect(existsSync(entry), 'run `npm run build` before this test').toBe(true);
  });

  const report = existsSync(entry) ? walkModuleGraph(entry, join(root, 'dist')) : undefined;

  it('reaches our modules and its runtime dependencies', () => {
    expect(report?.modules.length).toBeGreaterThan(20);
    expect(report?.modules.some((file) => file.includes(`${join('node_modules', 'ajv')}`))).toBe(true);
    expect(report?.unresolved).toEqual([]);
  });

  it('no reachable module imports a Node builtin', () => {
    expect(report?.builtinImports).toEqual([]);
  });

  it('none of our reachable files uses process or Buffer', () => {
    expect(report?.platformGlobals).toEqual([]);
  });

  it('no reachable module is a platform-specific package of ours (node, mcp, sqlite, cli)', () => {
    const ours = (report?.modules ?? []).filter((file) => file.startsWith(join(root, 'dist')));
    expect(ours.filter((file) => !file.startsWith(join(root, 'dist/core')))).toEqual([]);
  });
});

describe('the purity check itself catches violations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-purity-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  it('flags builtins imported anywhere in the graph, bare or node:, static or dynamic, ESM or CJS', () => {
    write('own/index.js', "export { a } from './a.js';\nimport 'dep';\nimport('dep/sub');\n");
    write('own/a.js', "import { readFile } from 'node:fs/promises';\nexport const a = readFile;\n");
    write('node_modules/dep/package.json', JSON.stringify({ name: 'dep', exports: { '.': { require: './cjs.cjs', import: './esm.js' }, './sub': './sub.cjs' } }));
    write('node_modules/dep/esm.js', "import path from 'path';\nexport default path;\n");
    write('node_modules/dep/sub.cjs', "const os = require('os');\nmodule.exports = os;\n");
    write('node_modules/dep/cjs.cjs', "module.exports = require('child_process');\n");
    const report = walkModuleGraph(join(dir, 'own/index.js'), join(dir, 'own'));
    expect(report.builtinImports.map((line) => line.split(' → ')[1])).toEqual(expect.arrayContaining(['node:fs/promises', 'path', 'os']));
    // The `require` condition is not what an ESM consumer loads.
    expect(report.builtinImports.map((line) => line.split(' → ')[1])).not.toContain('child_process');
    expect(report.unresolved).toEqual([]);
  });

  it('reports an unresolvable import instead of skipping it', () => {
    write('lost/index.js', "import 'missing-package';\nimport './missing.js';\n");
    expect(walkModuleGraph(join(dir, 'lost/index.js'), join(dir, 'lost')).unresolved).toHaveLength(2);
  });

  it('flags process and Buffer as identifiers, not as property names', () => {
    const text = 'const env = process.env.X;\nconst b = Buffer.from("x");\nconst { process: p } = options;\noptions.process();\nconst o = { Buffer: 1 };\nglobalThis["process"];\n';
    expect(findPlatformGlobals('x.js', text)).toEqual(['x.js:1 process', 'x.js:2 Buffer']);
  });
});
