import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError } from '../core/internal.js';
import { checkArgumentTargets, type McpArgumentTargets } from './argument-targets.js';
import { recognizeServer, type KnownServer } from './known-server-targets.js';
import type { McpServerConfig } from './mcp-types.js';

/** Why an upstream tool is governed or not, in the words `toolgate tools` prints. */
export type UpstreamGovernanceReason = 'untrusted server' | 'not read-only' | 'writes files' | 'override' | 'server not governed' | 'trusted, read-only annotation';

/** How one upstream tool is governed, and what of its arguments the policy judges. */
export interface UpstreamGovernance {
  /** A governed action: it asks under an approval regime (`ask`), and `plan` runs none. */
  readonly governed: boolean;
  readonly reason: UpstreamGovernanceReason;
  /** A trusted server says it is read-only (and not destructive). */
  readonly readOnly: boolean;
  /** Whether the paths its targets name are written or only read; undefined when it names no path. */
  readonly access: 'read' | 'write' | undefined;
  readonly targets: McpArgumentTargets;
  /** `config`: the server's `targets`; `shipped`: toolgate's table for a recognised reference server; undefined: none. */
  readonly targetsFrom: 'config' | 'shipped' | undefined;
}

/** `trust: 'annotations'`, or its older spelling `trusted: true`. */
export function isTrustedServer(server: Pick<McpServerConfig, 'trust' | 'trusted'>): boolean {
  return server.trust === 'annotations' || (server.trust === undefined && server.trusted === true);
}

/**
 * Decide how one upstream tool is governed. Fail closed: every tool is a
 * governed action unless its server is trusted and its annotations say it
 * is read-only and not destructive, or the configuration says otherwise for
 * that tool. A tool that writes the paths its targets name is always
 * governed. Its targets are the configuration's for that tool, else the
 * shipped table's when the server is a reference server, else none.
 */
export function upstreamGovernance(server: McpServerConfig, tool: Pick<Tool, 'name' | 'annotations'>, known: KnownServer | undefined = recognizeServer(server)): UpstreamGovernance {
  const trusted = isTrustedServer(server);
  const hints = tool.annotations;
  const readOnly = trusted && hints?.readOnlyHint === true && hints.destructiveHint !== true;
  const override = own(server.tools, tool.name);
  const configured = own(server.targets, tool.name);
  const shipped = known === undefined ? undefined : own(known.tools, tool.name);
  const targets = configured ?? shipped?.targets ?? {};
  const access = namesPaths(targets) ? (override?.access ?? shipped?.access ?? (readOnly ? 'read' : 'write')) : undefined;
  const writes = access === 'write';
  const decide = (governed: boolean, reason: UpstreamGovernanceReason): UpstreamGovernance =>
    Object.freeze({ governed, reason, readOnly, access, targets, targetsFrom: configured !== undefined ? 'config' : shipped !== undefined ? 'shipped' : undefined });
  if (override?.governed === true) return decide(true, 'override');
  if (override?.governed === false) return writes ? decide(true, 'writes files') : decide(false, 'override');
  if (server.governed === false) return writes ? decide(true, 'writes files') : decide(false, 'server not governed');
  if (!trusted) return decide(true, 'untrusted server');
  if (!readOnly) return decide(true, 'not read-only');
  if (writes) return decide(true, 'writes files');
  return decide(false, 'trusted, read-only annotation');
}

/**
 * Check what a server configuration says about governance, naming the key
 * that is wrong (`field` is where the server is: `servers[0]`,
 * `servers.fs`): trust, its older spelling, the targets and the per-tool
 * overrides. `governed: false` is refused for a tool known to write the
 * paths its targets name.
 */
export function checkServerGovernance(server: Partial<Record<keyof McpServerConfig, unknown>> & Pick<McpServerConfig, 'transport'>, field: string): void {
  const { trust, trusted, governed } = server;
  if (trust !== undefined && trust !== 'none' && trust !== 'annotations') throw new ConfigurationError(`${field}.trust`, 'must be "none" or "annotations"');
  if (trusted !== undefined && typeof trusted !== 'boolean') throw new ConfigurationError(`${field}.trusted`, 'must be true or false');
  if (trust !== undefined && trusted !== undefined && (trust === 'annotations') !== trusted) throw new ConfigurationError(`${field}.trusted`, `contradicts "trust": "${trust}" (trusted is its older spelling: give one)`);
  if (governed !== undefined && typeof governed !== 'boolean') throw new ConfigurationError(`${field}.governed`, 'must be true or false');
  const targets = record(server.targets, `${field}.targets`);
  const known = recognizeServer(server as McpServerConfig);
  for (const [name, entry] of Object.entries(targets)) {
    const where = `${field}.targets.${name}`;
    const checked = checkArgumentTargets(entry, where);
    const shipped = known === undefined ? undefined : own(known.tools, name);
    if (shipped !== undefined) keepsShippedKinds(checked, shipped.targets, where);
  }
  const tools = record(server.tools, `${field}.tools`);
  for (const [name, entry] of Object.entries(tools)) {
    const where = `${field}.tools.${name}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new ConfigurationError(where, 'must be an object ({ "governed": …, "access": … })');
    for (const key of Object.keys(entry)) if (key !== 'governed' && key !== 'access') throw new ConfigurationError(`${where}.${key}`, 'is not a tool setting (governed or access)');
    const { governed: toolGoverned, access } = entry as { governed?: unknown; access?: unknown };
    if (toolGoverned !== undefined && typeof toolGoverned !== 'boolean') throw new ConfigurationError(`${where}.governed`, 'must be true or false');
    if (access !== undefined && access !== 'read' && access !== 'write') throw new ConfigurationError(`${where}.access`, 'must be "read" or "write"');
    if (toolGoverned !== false) continue;
    const shipped = known === undefined ? undefined : own(known.tools, name);
    const toolTargets = (own(targets, name) as McpArgumentTargets | undefined) ?? shipped?.targets ?? {};
    if (namesPaths(toolTargets) && (access ?? shipped?.access) !== 'read') {
      throw new ConfigurationError(`${where}.governed`, 'cannot be false for a tool that writes the paths its targets name (give "access": "read" if it only reads them)');
    }
  }
}

/**
 * A configured entry replaces what toolgate ships for a tool of a recognised
 * server, and may point elsewhere; it may not leave out a kind of target the
 * server is known to read. An empty entry would otherwise run the tool with
 * no path judged at all: no workspace jail, no protected paths.
 */
function keepsShippedKinds(configured: McpArgumentTargets, shipped: McpArgumentTargets, where: string): void {
  if (namesPaths(shipped) && !namesPaths(configured)) throw new ConfigurationError(where, 'drops the path target toolgate knows this server reads (give its JSON pointer)');
  for (const kind of ['url', 'command'] as const) {
    if (shipped[kind] !== undefined && configured[kind] === undefined) throw new ConfigurationError(where, `drops the ${kind} target toolgate knows this server reads (give its JSON pointer)`);
  }
}

function namesPaths(targets: McpArgumentTargets): boolean {
  return targets.path !== undefined || targets.paths !== undefined;
}

function record(value: unknown, field: string): Readonly<Record<string, unknown>> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigurationError(field, 'must be an object keyed by upstream tool name');
  return value as Record<string, unknown>;
}

/** An own member only: a tool named `__proto__` or `constructor` finds nothing it did not configure. */
function own<T>(table: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return table !== undefined && Object.hasOwn(table, key) ? table[key] : undefined;
}
