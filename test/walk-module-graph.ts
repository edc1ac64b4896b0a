import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const BUILTINS = new Set(builtinModules);

export interface ModuleGraphReport {
  /** Every module reached, absolute paths. */
  readonly modules: readonly string[];
  /** `file → specifier` for each import of a Node builtin. */
  readonly builtinImports: readonly string[];
  /** `file:line identifier` for each `process` / `Buffer` use in a module under `ownRoot`. */
  readonly platformGlobals: readonly string[];
  /** Specifiers that could not be resolved (a failure too: an unresolved import hides a module). */
  readonly unresolved: readonly string[];
}

export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier) || BUILTINS.has(specifier.split('/')[0] ?? '');
}

/**
 * Walk the import graph from `entry`: static imports and re-exports, dynamic
 * `import('…')` and `require('…')` with literal specifiers. Relative
 * specifiers resolve against the importing file; bare ones through the
 * package's `package.json` (`exports` with the `import`/`default`
 * conditions, else `module`/`main`), found by walking up `node_modules`.
 */
export function walkModuleGraph(entry: string, ownRoot: string): ModuleGraphReport {
  const seen = new Set<string>();
  const builtinImports: string[] = [];
  const platformGlobals: string[] = [];
  const unresolved: string[] = [];
  const queue = [resolve(entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
      if (isNodeBuiltin(specifier)) {
        builtinImports.push(`${file} → ${specifier}`);
        continue;
      }
      const target = specifier.startsWith('.') || specifier.startsWith('/') ? resolveFile(resolve(dirname(file), specifier)) : resolvePackage(specifier, dirname(file));
      if (target === undefined) unresolved.push(`${file} → ${specifier}`);
      else queue.push(target);
    }
    if (file.startsWith(resolve(ownRoot))) platformGlobals.push(...findPlatformGlobals(file, text));
  }
  return { modules: [...seen].sort(), builtinImports, platformGlobals, unresolved };
}

function resolveFile(path: string): string | undefined {
  for (const candidate of [path, `${path}.js`, `${path}.cjs`, `${path}.mjs`, join(path, 'index.js')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function resolvePackage(specifier: string, fromDir: string): string | undefined {
  const parts = specifier.split('/');
  const packageName = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? '');
  const subpath = `.${specifier.slice(packageName.length)}`;
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const packageDir = join(dir, 'node_modules', packageName);
    if (existsSync(join(packageDir, 'package.json'))) return resolveInPackage(packageDir, subpath);
    if (dirname(dir) === dir) return undefined;
  }
}

function resolveInPackage(packageDir: string, subpath: string): string | undefined {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { exports?: unknown; module?: string; main?: string };
  if (manifest.exports !== undefined) {
    const exportsMap = manifest.exports;
    const isSubpathMap = typeof exportsMap === 'object' && exportsMap !== null && Object.keys(exportsMap).some((key) => key.startsWith('.'));
    const entry = isSubpathMap ? matchSubpath(exportsMap as Record<string, unknown>, subpath) : subpath === '.' ? exportsMap : undefined;
    const target = pickCondition(entry);
    return target === undefined ? undefined : resolveFile(join(packageDir, target));
  }
  if (subpath !== '.') return resolveFile(join(packageDir, subpath));
  return resolveFile(join(packageDir, manifest.module ?? manifest.main ?? 'index.js'));
}

function matchSubpath(exportsMap: Record<string, unknown>, subpath: string): unknown {
  if (Object.hasOwn(exportsMap, subpath)) return exportsMap[subpath];
  for (const [key, value] of Object.entries(exportsMap)) {
    const star = key.indexOf('*');
    if (star === -1 || !subpath.startsWith(key.slice(0, star)) || !subpath.endsWith(key.slice(star + 1))) continue;
    const captured = subpath.slice(star, subpath.length - (key.length - star - 1));
    return JSON.parse(JSON.stringify(value).replaceAll('*', captured)) as unknown;
  }
  return undefined;
}

// The conditions a runtime-neutral ESM consumer resolves with.
const CONDITIONS = ['import', 'module', 'default'];

function pickCondition(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (Array.isArray(entry)) return entry.map(pickCondition).find((target) => target !== undefined);
  if (typeof entry !== 'object' || entry === null) return undefined;
  for (const [condition, value] of Object.entries(entry)) {
    if (CONDITIONS.includes(condition)) {
      const target = pickCondition(value);
      if (target !== undefined) return target;
    }
  }
  return undefined;
}

const PLATFORM_GLOBALS = new Set(['process', 'Buffer']);

/** Uses of `process` / `Buffer` as identifiers — not as a property name (`options.process`). */
export function findPlatformGlobals(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && PLATFORM_GLOBALS.has(node.text) && !isPropertyName(node)) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${fileName}:${line + 1} ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isBindingElement(parent) && parent.propertyName === node) ||
    ((ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent)) && parent.name === node)
  );
}
