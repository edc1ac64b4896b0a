import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { ErrorObject } from 'ajv';
import { parse as parseJsonc, printParseErrorCode, visit, type ParseError } from 'jsonc-parser';
import { yamlParser } from '../../node/fs/yaml-parser.js';
import { CliError } from '../cli-error.js';
import { validateConfig } from './config-validator.js';
import type { ResolvedConfig, ToolgateConfigFile } from './config-types.js';

export const CONFIG_FILE_NAMES = ['toolgate.config.json', 'toolgate.config.jsonc', 'toolgate.config.yaml', 'toolgate.config.yml'] as const;

function validate(config: unknown): readonly ErrorObject[] {
  return validateConfig(config) ? [] : (validateConfig.errors ?? []);
}

/** Find the config file: the explicit path, else the first known name in `cwd`. */
export function findConfigFile(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) throw new CliError('usage', `Config file ${file} does not exist.`);
    return file;
  }
  return CONFIG_FILE_NAMES.map((name) => resolve(cwd, name)).find((file) => existsSync(file));
}

/**
 * Load, parse and validate the configuration, or the embedded default when
 * there is none: the current directory as a read-only workspace, mode `ask`
 * for anything governed, the SQLite journal. A bad file is reported with the
 * file, the JSON path, what was expected and what was found.
 */
export function loadConfig(cwd: string, explicit?: string): ResolvedConfig {
  const file = findConfigFile(cwd, explicit);
  if (file === undefined) return resolveConfig({}, undefined, cwd);
  const text = readFileSync(file, 'utf8');
  const parsed = file.endsWith('.yaml') || file.endsWith('.yml') ? parseYamlFile(file, text) : parseJsonFile(file, text);
  const problems = validate(parsed);
  if (problems.length > 0) throw new CliError('config', describeProblems(file, parsed, problems));
  return resolveConfig(parsed as ToolgateConfigFile, file, dirname(file));
}

function parseJsonFile(file: string, text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = lineColumn(text, first.offset);
    throw new CliError('config', `${file}:${line}:${column}: invalid JSON (${printParseErrorCode(first.error)}).`);
  }
  refuseProtoKeys(file, value);
  refuseDuplicateKeys(file, text);
  return value;
}

/**
 * JSON lets a key appear twice in one object, and the parser keeps the last:
 * `"scope": "read-only"` at the top and `"scope": "full"` at the end, or a
 * `deny` list emptied by a second `deny`, read one way to a person and the
 * other way to the gateway. YAML refuses such a file already; JSON does too.
 */
function refuseDuplicateKeys(file: string, text: string): void {
  const open: Set<string>[] = [];
  let duplicate: { key: string; offset: number } | undefined;
  visit(
    text,
    {
      onObjectBegin: () => void open.push(new Set()),
      onObjectEnd: () => void open.pop(),
      onObjectProperty: (key, offset) => {
        const keys = open.at(-1);
        if (keys === undefined || duplicate !== undefined) return;
        if (keys.has(key)) duplicate = { key, offset };
        keys.add(key);
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  if (duplicate === undefined) return;
  const { line, column } = lineColumn(text, duplicate.offset);
  throw new CliError('config', `${file}:${line}:${column}: the key ${JSON.stringify(duplicate.key)} appears twice in one object; only the last would count. Keep one.`);
}

/**
 * The JSONC parser sets a `__proto__` member as the prototype: keys under it
 * would be invisible to a reader of the file yet take effect (`scope: full`).
 * YAML refuses such keys as unknown; JSON does the same here.
 */
function refuseProtoKeys(file: string, value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) throw new CliError('config', `${file}: a "__proto__" key is not allowed.`);
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') throw new CliError('config', `${file}: a "${key}" key is not allowed.`);
    refuseProtoKeys(file, (value as Record<string, unknown>)[key]);
  }
}

function parseYamlFile(file: string, text: string): unknown {
  const yaml = yamlParser();
  try {
    return yaml.parse(text) as unknown;
  } catch (error) {
    const position = error instanceof yaml.YAMLParseError ? error.linePos?.[0] : undefined;
    throw new CliError('config', `${file}${position === undefined ? '' : `:${position.line}:${position.col}`}: invalid YAML (${error instanceof Error ? error.message.split('\n')[0] : 'unreadable'}).`);
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

function describeProblems(file: string, config: unknown, problems: readonly ErrorObject[]): string {
  // A bad key is reported once, by the check it failed (the pattern), not again as "property name must be valid".
  const reported = problems.filter((problem) => problem.keyword !== 'propertyNames');
  const lines = reported.slice(0, 8).map((problem) => {
    const path = `$${problem.instancePath.replaceAll('/', '.')}`;
    if (problem.propertyName !== undefined) {
      const pattern = (problem.params as { pattern?: unknown }).pattern;
      return `  ${path}: expected ${typeof pattern === 'string' ? `keys matching ${pattern}` : `keys that ${problem.message ?? 'are valid'}`}; found the key ${JSON.stringify(problem.propertyName)}`;
    }
    const found = describeFound(readPointer(config, problem.instancePath));
    const expected =
      problem.keyword === 'additionalProperties'
        ? `no property "${String((problem.params as { additionalProperty?: unknown }).additionalProperty)}" (unknown key)`
        : problem.keyword === 'type'
          ? `a value of type ${String((problem.params as { type?: unknown }).type)}`
          : problem.keyword === 'enum'
          ? `one of ${JSON.stringify((problem.params as { allowedValues?: unknown }).allowedValues)}`
            : (problem.message ?? 'a valid value');
    return `  ${path}: expected ${expected}; found ${found}`;
  });
  return `Invalid configuration in ${file}:\n${lines.join('\n')}${reported.length > 8 ? `\n  …and ${reported.length - 8} more` : ''}`;
}

function readPointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return node;
}

function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

function resolveConfig(config: ToolgateConfigFile, file: string | undefined, base: string): ResolvedConfig {
  const workspace = resolve(base, config.workspace ?? '.');
  const journalPath = config.journal?.path ?? '.toolgate/journal.db';
  return Object.freeze({
    file,
    workspace,
    scope: config.scope ?? 'read-only',
    mode: config.mode ?? 'ask',
    agent: config.agent ?? 'mcp-client',
    tools: config.tools ?? {},
    // Imported policy files are named relative to the config file.
    policy: { ...config.policy, imports: (config.policy?.imports ?? []).map((entry) => ({ ...entry, path: resolve(base, entry.path) })) },
    servers: config.servers ?? {},
    limits: config.limits ?? {},
    journal: { path: isAbsolute(journalPath) ? journalPath : resolve(workspace, journalPath), retentionDays: config.journal?.retentionDays, sign: config.journal?.sign ?? false, signEveryMs: config.journal?.signEveryMs, maxValueBytes: config.journal?.maxValueBytes },
    console: { enabled: config.console?.enabled ?? true, port: config.console?.port ?? 0 },
    elicitation: { trustedClients: config.elicitation?.trustedClients ?? [] },
    approvals: { timeoutSeconds: config.approvals?.timeoutSeconds ?? 600 },
  });
}
