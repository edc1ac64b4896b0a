import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createToolRegistry, mcpToolName, ToolgateError, type AnyToolDefinition } from '../core/internal.js';
import { clipWhole } from '../core/policy/clip-whole.js';
import { buildUpstreamTool } from './build-upstream-tool.js';
import { MAX_LISTING_SCHEMA_NODES, type SchemaNodeBudget } from './bound-schema-cost.js';
import { approvedDefinition, definitionDigest, pinnedDefinition } from './definition-digest.js';
import type { McpConnectionEventMap, McpConnectionEventName, McpServerConfig, ReviewedDefinition, WithheldDefinition, WithheldReason } from './mcp-types.js';
import { MAX_LISTING_TEXT, MAX_TOOLS, type SetAsideTool } from './list-all-tools.js';
import type { McpPin, McpPinnedDefinition, McpPinStore } from './pin-store.js';
import { scanHiddenCharacters, scanHiddenInValue } from './scan-hidden-characters.js';

/** What the connection knows about one upstream tool. */
export interface UpstreamEntry {
  readonly server: string;
  readonly tool: Tool;
  readonly name: string;
  readonly digest: string;
  readonly status: 'offered' | 'withheld';
  readonly reason: WithheldReason | undefined;
  readonly pinnedDigest: string | undefined;
  /** The definition approved before, when its pin kept it (withheld entries only). */
  readonly approved: McpPinnedDefinition | undefined;
  /** Present when offered. */
  readonly definition: AnyToolDefinition | undefined;
}

export type Emit = <TName extends McpConnectionEventName>(event: TName, payload: McpConnectionEventMap[TName]) => void;

export interface DiscoverServerToolsOptions {
  readonly server: McpServerConfig;
  readonly tools: readonly Tool[];
  /** Tools the listing set aside before anything walked them (`listAllTools`): each is reported as skipped. */
  readonly setAside?: readonly SetAsideTool[];
  /** The entries of the previous listing: unchanged definitions are reused as they are. */
  readonly previous: ReadonlyMap<string, UpstreamEntry>;
  readonly pins: McpPinStore;
  /**
   * Every configured server's name (this one's included): a tool is judged
   * against the pin of the name it is served under, whichever server's pin
   * it is (`pinsByServedName`). Defaults to this server alone.
   */
  readonly servers?: readonly string[];
  readonly pinning: 'first-use' | 'approve';
  readonly emit: Emit;
}

/**
 * Turn one upstream listing into entries keyed by the upstream tool name:
 * name each tool, digest it, scan its text, compare with its pin, and build
 * the definition of each offered one. A tool whose definition cannot compile
 * (a broken schema, the bounded profile) is skipped and reported, never
 * allowed to break the registry. Upstream names that fold to one toolgate
 * name are all skipped and reported (`tool-skipped`, `DUPLICATE_TOOL`):
 * neither is the tool the name stands for, and a server that lists them
 * costs only those tools, never the gateway.
 */
export async function discoverServerTools(options: DiscoverServerToolsOptions): Promise<Map<string, UpstreamEntry>> {
  const { server } = options;
  const entries = new Map<string, UpstreamEntry>();
  const pinning: Promise<void>[] = [];
  const pins = await pinsOf(options);
  const budget = firstUseBudget(pins.byTool.values());
  // What this listing compiles of its untrusted schemas, all tools together; an unchanged definition is not compiled again.
  const schemaBudget: SchemaNodeBudget = { nodes: MAX_LISTING_SCHEMA_NODES };
  for (const { tool, problem } of options.setAside ?? []) {
    const name = mcpToolName(server.name, tool);
    const error = new ToolgateError('TOOL_DEFINITION_INVALID', `Tool "${name}" ${problem}.`, { tool: name });
    options.emit('tool-skipped', { server: server.name, tool, error: error.toJSON() });
  }
  const folded = foldedNames(server.name, options.tools);
  for (const tool of options.tools) {
    const name = mcpToolName(server.name, tool.name);
    const sharing = folded.get(name) ?? [];
    if (sharing.length > 1) {
      const [first = tool.name, second = tool.name] = sharing;
      const error = new ToolgateError('DUPLICATE_TOOL', `MCP server "${server.name}" offers tools "${first}" and "${second}", which both become "${name}": neither is offered.`, { tool: name });
      options.emit('tool-skipped', { server: server.name, tool: tool.name, error: error.toJSON() });
      continue;
    }
    const digest = await definitionDigest(tool);
    const previous = options.previous.get(tool.name);
    if (previous !== undefined && previous.digest === digest && previous.status === 'offered') {
      entries.set(tool.name, previous);
      continue;
    }
    const entry = await decide(options, tool, name, digest, pinning, pins.byTool.get(tool.name) ?? pins.byServedName.get(name), { firstUse: budget, schemas: schemaBudget });
    if (entry !== undefined) entries.set(tool.name, entry);
  }
  // First-use pins are stored together (one write for a whole listing) before anything is offered.
  await Promise.all(pinning);
  return entries;
}

/** The upstream names of a listing by the toolgate name each folds to (a name listed twice counts twice). */
function foldedNames(server: string, tools: readonly Tool[]): Map<string, string[]> {
  const folded = new Map<string, string[]>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool.name);
    folded.set(name, [...(folded.get(name) ?? []), tool.name]);
  }
  return folded;
}

/**
 * The pins that judge one listing, read once: this server's by upstream
 * name, and every configured server's by the name each tool is served
 * under. A client, the policy and every approval (an allow rule among them)
 * know a tool by that name: an upstream that renames `echo` to `ECHO`,
 * which folds to the same name, or a server `gh_admin` whose `delete` is
 * served as the `mcp_gh_admin_delete` of a server `gh` (down at this
 * start, say), offers a tool nobody approved under a name somebody did.
 * Without a pin of its own, it is judged against the pin of that name,
 * never pinned afresh on first use.
 */
async function pinsOf(options: DiscoverServerToolsOptions): Promise<{ byTool: Map<string, McpPin>; byServedName: Map<string, McpPin> }> {
  const byTool = new Map<string, McpPin>();
  const byServedName = new Map<string, McpPin>();
  for (const server of new Set([...(options.servers ?? []), options.server.name])) {
    for (const pin of await options.pins.list(server)) {
      if (server === options.server.name) byTool.set(pin.tool, pin);
      try {
        byServedName.set(mcpToolName(server, pin.tool), pin);
      } catch {
        // A pinned name that no longer makes a tool name is served under none.
      }
    }
  }
  return { byTool, byServedName };
}

/**
 * The most first-use pins one server may hold, and the most text (as JSON,
 * in UTF-16 code units) their definitions may take: twice what one listing
 * may hold (`listAllTools`). Pins are never dropped, since a dropped pin
 * lets a changed definition be pinned afresh, and every pin check reads the
 * whole pin file. An upstream that listed its tools under new names and
 * asked to be listed again at once had each name pinned on first use: ten
 * tools of 700 KB a listing grew the pin file by 7 MB a listing, without
 * end, and a file past what one string holds could not be read, which
 * fails the gateway's next start. Past either bound a new name is withheld
 * as unapproved, for a person to approve.
 */
export const FIRST_USE_PIN_LIMITS = Object.freeze({ maxPins: 2 * MAX_TOOLS, maxText: 2 * MAX_LISTING_TEXT });

interface FirstUseBudget {
  pins: number;
  text: number;
}

/** What a server's pins already take of `FIRST_USE_PIN_LIMITS`. */
function firstUseBudget(pins: Iterable<McpPin>): FirstUseBudget {
  const budget = { pins: 0, text: 0 };
  for (const pin of pins) {
    budget.pins += 1;
    budget.text += pin.definition === undefined ? 0 : JSON.stringify(pin.definition).length;
  }
  return budget;
}

/** Take a first-use pin of `text` from `budget`; false, taking nothing, when it would pass a bound. */
function takeFirstUse(budget: FirstUseBudget, text: number): boolean {
  if (budget.pins + 1 > FIRST_USE_PIN_LIMITS.maxPins || budget.text + text > FIRST_USE_PIN_LIMITS.maxText) return false;
  budget.pins += 1;
  budget.text += text;
  return true;
}

/** `pin`: the tool's own, or else the pin of the name it is served under (`pinsOf`). */
async function decide(
  options: DiscoverServerToolsOptions,
  tool: Tool,
  name: string,
  digest: string,
  pinning: Promise<void>[],
  pin: McpPin | undefined,
  { firstUse: budget, schemas: schemaBudget }: { readonly firstUse: FirstUseBudget; readonly schemas: SchemaNodeBudget },
): Promise<UpstreamEntry | undefined> {
  const { server, emit } = options;
  const base = { server: server.name, tool, name, digest, pinnedDigest: pin?.digest, approved: undefined };
  if (pin === undefined && options.pinning === 'approve') return withhold(emit, { ...base, reason: 'unapproved' });
  const firstUse = pin === undefined ? pinnedDefinition(tool) : undefined;
  if (firstUse !== undefined && !takeFirstUse(budget, JSON.stringify(firstUse).length)) return withhold(emit, { ...base, reason: 'unapproved' });
  if (pin !== undefined && (pin.digest !== digest || pin.tool !== tool.name || pin.server !== server.name)) {
    return withhold(emit, { ...base, reason: 'changed', approved: await approvedDefinition(pin.tool, pin) });
  }
  const definition = buildDefinition(options, tool, name, schemaBudget);
  if (definition === undefined) return undefined;
  if (firstUse !== undefined) {
    pinning.push(
      options.pins.set({ server: server.name, tool: tool.name, digest, approvedAt: new Date().toISOString(), approvedBy: 'first-use', definition: firstUse }).then(() => {
        emit('definition-pinned', { server: server.name, tool: tool.name, name, digest });
      }),
    );
  }
  return Object.freeze({ ...base, pinnedDigest: digest, status: 'offered', reason: undefined, definition });
}

function withhold(emit: Emit, entry: Omit<UpstreamEntry, 'status' | 'definition'> & { reason: WithheldReason }): UpstreamEntry {
  const withheld: UpstreamEntry = Object.freeze({ ...entry, status: 'withheld', definition: undefined });
  emit('definition-withheld', describeWithheld(withheld));
  return withheld;
}

/** What a reviewer sees of a withheld definition: identity, digests, the offered text and the approved one, hidden characters removed. */
export function describeWithheld(entry: UpstreamEntry): WithheldDefinition {
  return Object.freeze({
    server: entry.server,
    tool: entry.tool.name,
    name: entry.name,
    reason: entry.reason ?? 'changed',
    digest: entry.digest,
    pinnedDigest: entry.pinnedDigest,
    offered: reviewable(entry.tool),
    ...(entry.approved === undefined ? {} : { approved: reviewable(entry.approved) }),
  });
}

function reviewable(definition: McpPinnedDefinition): ReviewedDefinition {
  const text = scanHiddenInValue(
    { title: definition.title, description: definition.description, inputSchema: definition.inputSchema, outputSchema: definition.outputSchema, annotations: definition.annotations },
    true,
  ).value;
  return Object.freeze({
    ...(text.title === undefined ? {} : { title: text.title }),
    description: text.description ?? '',
    inputSchema: text.inputSchema,
    ...(text.outputSchema === undefined ? {} : { outputSchema: text.outputSchema }),
    ...(text.annotations === undefined ? {} : { annotations: text.annotations }),
  });
}

/** An upstream description is model-visible text: it may not take over the context window. */
const MAX_DESCRIPTION = 4096;
/**
 * The most text one tool's schemas may take (as JSON, in UTF-16 code units).
 * A client reads them whole, from every tool, on every listing: a larger
 * one is skipped and reported (`tool-skipped`), as a schema that does not
 * compile is.
 */
export const MAX_SCHEMA_TEXT = 256 * 1024;

/** Scan the model-visible text, build the definition and prove it compiles. */
export function buildDefinition(options: Pick<DiscoverServerToolsOptions, 'server' | 'emit'>, tool: Tool, name: string, schemaBudget?: SchemaNodeBudget): AnyToolDefinition | undefined {
  const { server, emit } = options;
  const schemaText = JSON.stringify([tool.inputSchema, tool.outputSchema ?? null]).length;
  if (schemaText > MAX_SCHEMA_TEXT) {
    const failure = new ToolgateError('TOOL_DEFINITION_INVALID', `Tool "${name}" has schemas of ${schemaText} characters, more than ${MAX_SCHEMA_TEXT}.`, { tool: name });
    emit('tool-skipped', { server: server.name, tool: tool.name, error: failure.toJSON() });
    return undefined;
  }
  const strip = server.stripHiddenCharacters !== false;
  const description = scanHiddenCharacters(tool.description ?? '', strip);
  if (description.count > 0) {
    emit('hidden-characters-detected', { server: server.name, tool: tool.name, where: 'description', count: description.count, codePoints: description.codePoints, stripped: strip });
  }
  const schemas = scanHiddenInValue({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, strip);
  if (schemas.count > 0) {
    emit('hidden-characters-detected', { server: server.name, tool: tool.name, where: 'schema', count: schemas.count, codePoints: schemas.codePoints, stripped: strip });
  }
  const { inputSchema, outputSchema } = schemas.value;
  const cleanTool: Tool = { ...tool, inputSchema, ...(outputSchema === undefined ? {} : { outputSchema }) };
  try {
    const text = description.text.length > MAX_DESCRIPTION ? `${clipWhole(description.text, MAX_DESCRIPTION)}…` : description.text;
    const definition = buildUpstreamTool({ server, tool: cleanTool, name, description: text, ...(schemaBudget === undefined ? {} : { schemaBudget }) });
    // Compiling here (the result is cached per definition) keeps a broken upstream schema out of every registry.
    createToolRegistry({ tools: [definition] });
    return definition;
  } catch (error) {
    const failure = ToolgateError.isInstance(error) ? error : new ToolgateError('TOOL_DEFINITION_INVALID', `Tool "${name}" could not be built.`, { tool: name });
    emit('tool-skipped', { server: server.name, tool: tool.name, error: failure.toJSON() });
    return undefined;
  }
}
