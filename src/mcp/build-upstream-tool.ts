import { ConfigurationError, requireCapability, ToolDefinitionError, ToolPolicyError, UnresolvedReferenceError, type AnyToolDefinition, type JsonSchema, type ToolFacts } from '../core/internal.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { compileArgumentTargets } from './argument-targets.js';
import { checkGitRepository } from './check-git-repository.js';
import { checkNamedFiles } from './check-named-files.js';
import { checkUpstreamDestination } from './check-upstream-destination.js';
import { recognizeServer } from './known-server-targets.js';
import { recheckUpstreamTargets } from './recheck-upstream-targets.js';
import type { McpServerConfig } from './mcp-types.js';
import { mapCallToolResult } from './map-call-tool-result.js';
import { boundSchemaCost, type SchemaNodeBudget } from './bound-schema-cost.js';
import { checkRegexFree, stripSchemaRegexes } from './strip-schema-regexes.js';
import { isTrustedServer, upstreamGovernance, type UpstreamGovernance } from './upstream-governance.js';

const governanceOf = new WeakMap<AnyToolDefinition, UpstreamGovernance>();

/** How a definition built from an upstream tool is governed (`toolgate tools` says it); undefined for any other definition. */
export function upstreamGovernanceOf(definition: AnyToolDefinition | undefined): UpstreamGovernance | undefined {
  return definition === undefined ? undefined : governanceOf.get(definition);
}

export interface BuildUpstreamToolOptions {
  readonly server: McpServerConfig;
  readonly tool: Tool;
  /** The toolgate name (`mcp_{server}_{tool}`). */
  readonly name: string;
  /** The description after the hidden-character scan. */
  readonly description: string;
  /** What its listing has left of the objects and arrays toolgate compiles (`MAX_LISTING_SCHEMA_NODES`); unbounded without it. */
  readonly schemaBudget?: SchemaNodeBudget;
}

/**
 * A discovered upstream tool as a toolgate definition. The body reaches the
 * upstream only through `host.mcp` (absent ⇒ `ToolUnavailableError`), with
 * the call's signal and progress sink, so the capability can enforce pins
 * and every host sees one path for MCP traffic.
 *
 * Governed by default (upstream-governance.ts): MCP egress, so it asks under
 * an approval regime. Its argument targets become its policy target, and its
 * policy class follows them: a path makes it filesystem-scoped (the host
 * resolves the path, the floor jails it), a written path makes it write.
 */
export function buildUpstreamTool(options: BuildUpstreamToolOptions): AnyToolDefinition {
  const { server, tool, name } = options;
  const trusted = isTrustedServer(server);
  const known = recognizeServer(server);
  const governance = upstreamGovernance(server, tool, known);
  const facts = toFacts(tool.annotations, trusted);
  const readOnly = facts.readOnly === true;
  const input = schemas(name, 'input', tool.inputSchema, trusted, options.schemaBudget);
  const output = tool.outputSchema === undefined ? undefined : schemas(name, 'output', tool.outputSchema, trusted, options.schemaBudget);
  const description = options.description.trim().length > 0 ? options.description : `Tool "${tool.name}" of MCP server "${server.name}".`;
  // How the shipped table says the server reads `paths` holds only for the shipped targets, not for ones the configuration gives.
  const knownTool = known !== undefined && Object.hasOwn(known.tools, tool.name) ? known.tools[tool.name] : undefined;
  const shipped = governance.targetsFrom === 'shipped' ? knownTool : undefined;
  // The git server's writing tools write what a branch holds, wherever in the work tree; the file server's, what they name.
  const writesWorkTree = known?.kind === 'git' && knownTool?.access === 'write';
  const field = `servers.${server.name}.targets.${tool.name}`;
  const spelling = {
    ...(known?.spellings === undefined ? {} : { spellings: known.spellings }),
    ...(shipped?.pathsWithin === undefined ? {} : { pathsWithin: shipped.pathsWithin }),
  };
  const targetsOf = compileArgumentTargets(governance.targets, field, spelling);
  // The entries of `paths` alone, spelled as judged, for a tool that must be named files (`checkNamedFiles`).
  const filesOf = shipped?.filesOnly === true && governance.targets.paths !== undefined ? compileArgumentTargets({ paths: governance.targets.paths }, field, spelling) : undefined;
  // Arguments that do not fit the targets refuse the call saying which target and why; the words quote no value.
  const targetsIn = (args: Record<string, unknown>, reader = targetsOf) => {
    // What the server passes to a command line is its own, whatever targets the configuration gives.
    for (const member of knownTool?.notOptions ?? []) {
      const value = Object.hasOwn(args, member) ? args[member] : undefined;
      if (typeof value === 'string' && value.startsWith('-')) throw new ToolPolicyError(name, 'target_unavailable', { detail: `was refused: its argument ${member} begins with "-", which the server passes on as a command-line option` });
    }
    try {
      return reader(args);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      throw new ToolPolicyError(name, 'target_unavailable', { detail: `was refused: its target ${error.field} ${error.problemText}`, cause: error });
    }
  };
  const policy = {
    ...(governance.governed ? { egress: 'mcp' as const } : {}),
    ...(governance.access === undefined ? {} : { fsScoped: true }),
    ...(governance.access === 'write' ? { fsWrite: true } : {}),
  };
  const definition = Object.freeze({
    name,
    description,
    input: input.validated,
    ...(input.shown === undefined ? {} : { inputJsonSchema: input.shown }),
    // A client reads, as the output schema, the copy toolgate checks every structured value against: MCP SDK clients
    // compile each output schema they list, and the upstream's own (a pattern no engine reads, an anyOf of 2,000)
    // failed or held the listing of every tool the gateway serves.
    ...(output === undefined ? {} : { output: output.validated }),
    facts,
    source: 'mcp',
    // Without trusted facts an upstream tool may do anything: external effect, medium risk.
    effect: readOnly ? 'read' : facts.destructive === true ? 'write' : 'external',
    risk: readOnly ? 'low' : facts.destructive === true ? 'high' : 'medium',
    policy,
    ...(server.schemaProfile === undefined ? {} : { schemaProfile: server.schemaProfile }),
    policyTarget: (args: Record<string, unknown>) => ({ server: server.name, mcpTool: tool.name, mcpArguments: args, ...targetsIn(args) }),
    ...(readOnly ? { isConcurrencySafe: () => true } : {}),
    async dispatch(args: Record<string, unknown>, host, context) {
      const mcp = requireCapability(host, 'mcp', name);
      await recheckUpstreamTargets(host, name, context.action, context.signal);
      // The git server runs git, and GitPython its hooks, in the repository it is named, on the host.
      if (known?.kind === 'git') await checkGitRepository(host, name, targetsIn(args).path, context.action, tool.name === 'git_commit');
      if (filesOf !== undefined) {
        const files = targetsIn(args, filesOf);
        await checkNamedFiles(host, name, [...(files.path === undefined ? [] : [files.path]), ...(files.paths ?? [])], context.signal);
      }
      await checkUpstreamDestination(host, name, context.action, context.signal);
      const onProgress = context.hostCallOptions?.onProgress;
      const result = await mcp.call(
        { server: server.name, tool: tool.name, arguments: args, targetsJudged: true, ...(writesWorkTree ? { writesWorkTree } : {}), ...(onProgress === undefined ? {} : { onProgress }) },
        context.signal,
        context.hostCallOptions,
      );
      return mapCallToolResult(result as Parameters<typeof mapCallToolResult>[0], host.mediaStore);
    },
  } satisfies AnyToolDefinition);
  governanceOf.set(definition, governance);
  return definition;
}

/**
 * The schemas of one side of the tool. A trusted server's schema is used as
 * it is. For any other server, toolgate validates with a copy from which the
 * regular expressions are stripped (strip-schema-regexes.ts): a hostile
 * `pattern` would otherwise run on the gateway's event loop, against
 * arguments any model or client chooses (or, for the output, results the
 * upstream chooses), and one too large to compile or too costly to check
 * a value against asks only for an object (bound-schema-cost.ts). The
 * upstream's own input schema stays the model-visible one
 * (`inputJsonSchema`); the output schema a client reads is the checked copy.
 * The pin digests the upstream's own (definition-digest.ts), and the
 * upstream still applies it whole itself.
 */
function schemas(name: string, io: 'input' | 'output', schema: JsonSchema, trusted: boolean, budget: SchemaNodeBudget | undefined): { readonly validated: JsonSchema; readonly shown?: JsonSchema } {
  if (trusted) return { validated: schema };
  let validated: JsonSchema;
  try {
    validated = boundSchemaCost(stripSchemaRegexes(schema), budget);
  } catch (error) {
    if (error instanceof UnresolvedReferenceError) throw new ToolDefinitionError(name, io, error.message, error);
    throw error;
  }
  const problem = checkRegexFree(validated);
  if (problem !== undefined) throw new ToolDefinitionError(name, io, `${problem}: toolgate runs no regular expression of an untrusted MCP server`);
  return { validated, shown: schema };
}

/**
 * Annotations are the upstream's claims. From a trusted server they are
 * facts. From any other server only the cautious ones count (destructive,
 * open-world): a claim of being read-only or idempotent would loosen the
 * policy, so it is dropped.
 */
function toFacts(annotations: Tool['annotations'], trusted: boolean): ToolFacts {
  if (annotations === undefined) return Object.freeze({});
  const facts: { -readonly [K in keyof ToolFacts]: ToolFacts[K] } = {};
  if (trusted) {
    if (typeof annotations.readOnlyHint === 'boolean') facts.readOnly = annotations.readOnlyHint;
    if (typeof annotations.idempotentHint === 'boolean') facts.idempotent = annotations.idempotentHint;
    if (typeof annotations.destructiveHint === 'boolean') facts.destructive = annotations.destructiveHint;
    if (typeof annotations.openWorldHint === 'boolean') facts.openWorld = annotations.openWorldHint;
  } else {
    if (annotations.destructiveHint === true) facts.destructive = true;
    if (annotations.openWorldHint === true) facts.openWorld = true;
  }
  return Object.freeze(facts);
}
