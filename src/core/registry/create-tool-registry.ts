import { admitCall } from '../dispatch/admit-call.js';
import { createDispatchState, type DispatchOrigin, type DispatchState } from '../dispatch/dispatch-state.js';
import type { DispatchContext, ToolCall, ToolOutcome } from '../dispatch/dispatch-types.js';
import { runDispatch } from '../dispatch/run-dispatch.js';
import { ConfigurationError, DuplicateToolError, ToolDefinitionError } from '../errors/tool-errors.js';
import { createCallPlaces } from '../dispatch/create-call-places.js';
import { EventBus } from '../events/event-bus.js';
import type { ToolgateEventName, ToolgateListener } from '../events/event-types.js';
import type { ToolHost } from '../host/tool-host.js';
import { checkSha256 } from '../digest/check-sha256.js';
import { prepareInvocation } from '../plan/prepare-invocation.js';
import type { InvocationPlan } from '../plan/plan-types.js';
import { guardrailFloor } from '../policy/guardrail-floor.js';
import type { ToolPolicy } from '../policy/policy-types.js';
import type { ConfirmActionHook, ToolApprovalContext, ToolApprovalDecision } from '../policy/approval-types.js';
import { projectTools, writes } from '../projection/project-tools.js';
import type { ProjectOptions, ProviderName, ProviderTools } from '../projection/projection-types.js';
import { isToolName } from '../names/tool-name.js';
import { compileTool, type CompiledTool } from '../tools/compile-tool.js';
import type { AnyToolDefinition, JsonSchema, NestedCall } from '../tools/tool-types.js';
import { checkPresentation, offeredTools, requireRuntime, resolveCodeMode } from '../code-mode/resolve-code-mode.js';
import { CODE_MODE_TOOL_NAME, type FoundResolution, type RegistrySnapshot, type ScopeMask, type ScopeState } from './registry-state.js';
import type { CreateToolRegistryOptions, ScopeOptions, ScopeRestriction, ToolInfo, ToolRegistry } from './registry-types.js';
import { resolveLimits } from './resolve-limits.js';
import { findWireName, isAdmittedBy, resolveToolName, visibleTools } from './resolve-tool-name.js';
import { wireToolName } from '../names/wire-tool-name.js';

const NO_HOST: ToolHost = Object.freeze({});
const MAX_CACHED_PROJECTIONS = 32;

/**
 * Build an immutable registry. Every definition is checked and compiled
 * here, once per tool version; any bad definition throws a typed error
 * naming the tool and the field, and no registry exists. There is no
 * `register` afterwards: `with()` returns a new snapshot.
 */
export function createToolRegistry(options: CreateToolRegistryOptions): ToolRegistry {
  const limits = resolveLimits(options.limits);
  const snapshot = buildSnapshot(options.tools, {
    reserved: new Set(options.reserved ?? []),
    host: options.host ?? NO_HOST,
    // The registry's own hash wins over the host's; each is checked against known answers first.
    sha256: checkSha256(options.sha256, 'sha256') ?? checkSha256(options.host?.sha256, 'host.sha256'),
    policy: options.policy ?? guardrailFloor,
    journal: options.journal,
    hooks: Object.freeze({
      preExecute: Object.freeze([...(options.hooks?.preExecute ?? [])]),
      guards: Object.freeze([...(options.hooks?.guards ?? [])]),
      around: Object.freeze([...(options.hooks?.around ?? [])]),
      postExecute: Object.freeze([...(options.hooks?.postExecute ?? [])]),
    }),
    limits,
    places: createCallPlaces(limits.maxConcurrentCalls),
    // Code Mode: the default presentation and the `run_code` transport (kept out of the tool maps).
    ...resolveCodeMode(options),
    bus: new EventBus(),
  });
  return new RegistryView(snapshot, undefined);
}

type SnapshotSettings = Omit<RegistrySnapshot, 'byKey' | 'byName' | 'resolutions' | 'definitions'>;

function buildSnapshot(definitions: readonly AnyToolDefinition[], settings: SnapshotSettings): RegistrySnapshot {
  if (!Array.isArray(definitions as unknown)) throw new ConfigurationError('tools', 'must be an array of tool definitions');
  const byKey = new Map<string, CompiledTool>();
  const byName = new Map<string, CompiledTool[]>();
  for (const definition of definitions) addTool(byKey, byName, compileTool(definition));
  for (const name of settings.reserved) {
    if (name === CODE_MODE_TOOL_NAME) continue;
    if (!isToolName(name)) throw new ConfigurationError('reserved', 'must list valid tool names');
  }
  const resolutions = buildResolutions(sortVersions(byName));
  const definitionsByName = new Map([...resolutions].map(([name, found]) => [name, found.definition] as const));
  return Object.freeze({ ...settings, byKey, byName, resolutions, definitions: definitionsByName });
}

function addTool(byKey: Map<string, CompiledTool>, byName: Map<string, CompiledTool[]>, tool: CompiledTool): void {
  // The transport comes only from `codeRuntime`: no definition, builtin or not, may take its name.
  if (tool.name === CODE_MODE_TOOL_NAME) throw new ToolDefinitionError(tool.name, 'name', 'is reserved for the Code Mode transport');
  const versions = byName.get(tool.name) ?? [];
  // A bare name and a versioned one cannot coexist: the bare name would be ambiguous.
  if (byKey.has(tool.key) || (versions.length > 0 && (tool.version === undefined || versions.some((entry) => entry.version === undefined)))) {
    throw new DuplicateToolError(tool.name, tool.version);
  }
  // Two tools a model would call by the same wire name (`name__v1_2_0`) are duplicates too.
  const wire = wireToolName(tool.name, tool.version);
  const clash = tool.version === undefined ? findWireName(byName, wire) : byName.has(wire) ? wire : versions.find((entry) => wireToolName(entry.name, entry.version) === wire)?.key;
  if (clash !== undefined) throw new DuplicateToolError(tool.name, tool.version, `its wire name "${wire}" is also the wire name of "${clash}"`);
  byKey.set(tool.key, tool);
  byName.set(tool.name, [...versions, tool]);
}

function buildResolutions(byName: ReadonlyMap<string, readonly CompiledTool[]>): Map<string, FoundResolution> {
  const resolutions = new Map<string, FoundResolution>();
  for (const [name, versions] of byName) {
    for (const tool of versions) {
      const found: FoundResolution = Object.freeze({ found: true, name, tool, definition: tool.definition });
      resolutions.set(tool.key, found);
      if (tool.version !== undefined) resolutions.set(wireToolName(name, tool.version), found);
      if (versions.length === 1) resolutions.set(name, found);
    }
  }
  return resolutions;
}

function sortVersions(byName: Map<string, CompiledTool[]>): Map<string, readonly CompiledTool[]> {
  for (const versions of byName.values()) versions.sort((left, right) => (left.key < right.key ? -1 : 1));
  return byName;
}

/** The global view (scope undefined) or an agent's scope; both share one snapshot. */
class RegistryView implements ToolRegistry {
  readonly #snapshot: RegistrySnapshot;
  readonly #scope: ScopeState | undefined;
  #visible: readonly CompiledTool[] | undefined;
  #list: readonly ToolInfo[] | undefined;
  readonly #projections = new Map<string, unknown>();

  constructor(snapshot: RegistrySnapshot, scope: ScopeState | undefined) {
    this.#snapshot = snapshot;
    this.#scope = scope;
    Object.freeze(this);
  }

  get agent(): string | undefined {
    return this.#scope?.agent;
  }
  get presentAs(): RegistrySnapshot['presentAs'] {
    return this.#scope?.presentAs ?? this.#snapshot.presentAs;
  }
  get codeRuntime(): RegistrySnapshot['codeRuntime'] {
    return this.#snapshot.codeRuntime;
  }
  get host(): ToolHost {
    return this.#snapshot.host;
  }
  get policy(): ToolPolicy {
    return this.#snapshot.policy;
  }
  get journal(): RegistrySnapshot['journal'] {
    return this.#snapshot.journal;
  }
  get limits(): RegistrySnapshot['limits'] {
    return this.#snapshot.limits;
  }

  dispatch(call: ToolCall, context: DispatchContext = {}): Promise<ToolOutcome> {
    return this.#dispatch(call, context, 'model');
  }

  #dispatch(call: ToolCall, context: DispatchContext, origin: DispatchOrigin, parent?: DispatchState): Promise<ToolOutcome> {
    const state = createDispatchState(this.#snapshot, this.#scope, admitCall(call), context, origin, parent);
    return runDispatch(state, this.#nested);
  }

  /** Nested calls (Code Mode) run the whole pipeline with the enclosing call as parent. */
  readonly #nested = (parent: DispatchState, call: NestedCall, signal: AbortSignal | undefined): Promise<ToolOutcome> => {
    const { context } = parent;
    const approval = stopAskingWhen(context.approval, call.stopAsking);
    const nestedContext: DispatchContext = { ...context, parent: parent.call.callId, ...(signal === undefined ? {} : { signal }), ...(approval === undefined ? {} : { approval }) };
    const callId = call.callId ?? `${parent.call.callId}.${(nestedCounter += 1).toString(36)}`;
    return this.#dispatch({ callId, name: call.name, arguments: call.arguments }, nestedContext, 'nested', parent);
  };

  prepare(call: ToolCall, context: DispatchContext = {}): Promise<InvocationPlan> {
    return prepareInvocation(createDispatchState(this.#snapshot, this.#scope, admitCall(call), context, 'model'));
  }

  get(name: string): AnyToolDefinition | undefined {
    if (typeof name !== 'string') return undefined;
    // The global view: every name that finds a tool is in one map.
    if (this.#scope === undefined) return this.#snapshot.definitions.get(name);
    const resolution = resolveToolName(this.#snapshot, this.#scope, name);
    return resolution.found ? resolution.definition : undefined;
  }

  #visibleTools(): readonly CompiledTool[] {
    return (this.#visible ??= Object.freeze(visibleTools(this.#snapshot, this.#scope)));
  }

  list(): readonly ToolInfo[] {
    return (this.#list ??= Object.freeze(this.#visibleTools().map(toolInfo)));
  }

  schemas(): readonly { readonly name: string; readonly description: string; readonly inputSchema: JsonSchema }[] {
    return this.list().map((info) => ({ name: info.key, description: info.description, inputSchema: info.inputSchema }));
  }

  project<TProvider extends ProviderName>(provider: TProvider, options: ProjectOptions = {}): ProviderTools<TProvider> {
    const tier = options.tier ?? 'full';
    if (tier !== 'full' && tier !== 'read-only') throw new ConfigurationError('project.tier', 'must be "full" or "read-only"');
    const cacheKey = `${provider}|${tier}|${JSON.stringify(options.order ?? [])}`;
    let projected = this.#projections.get(cacheKey) as ProviderTools<TProvider> | undefined;
    if (projected === undefined) {
      projected = projectTools(provider, offeredTools(this.presentAs, this.#visibleTools(), this.#snapshot.codeTool), options);
      // Callers may vary `order` freely; keep the per-view cache bounded.
      if (this.#projections.size >= MAX_CACHED_PROJECTIONS) this.#projections.clear();
      this.#projections.set(cacheKey, projected);
    }
    return projected;
  }

  isAdmitted(name: string): boolean {
    return isAdmittedBy(this.#scope, name);
  }

  scope(agent: string, options: ScopeOptions = {}): ToolRegistry {
    if (this.#scope !== undefined) {
      // A scope is immutable: its presentation is declared once, when it is created.
      if (options.presentAs !== undefined) throw new ConfigurationError('scope.presentAs', 'is already declared for this scope: a second declaration is refused');
      throw new ConfigurationError('scope', 'scopes are created from the global registry view');
    }
    if (typeof agent !== 'string' || agent.length === 0) throw new ConfigurationError('scope.agent', 'must be a non-empty string');
    return new RegistryView(this.#snapshot, buildScope(this.#snapshot, agent, options));
  }

  with(tools: readonly AnyToolDefinition[], options: { readonly remove?: readonly string[] } = {}): ToolRegistry {
    const remove = new Set(options.remove ?? []);
    if (remove.has(CODE_MODE_TOOL_NAME)) throw new ConfigurationError('with.remove', `cannot remove the reserved "${CODE_MODE_TOOL_NAME}" transport`);
    const kept = [...this.#snapshot.byKey.values()].filter((tool) => !remove.has(tool.name) && !remove.has(tool.key)).map((tool) => tool.definition);
    const { byKey: _byKey, byName: _byName, resolutions: _resolutions, definitions: _definitions, ...settings } = this.#snapshot;
    return this.#rebind(buildSnapshot([...kept, ...tools], settings));
  }

  reserve(...names: string[]): ToolRegistry {
    const { byKey: _byKey, byName: _byName, resolutions: _resolutions, definitions: _definitions, ...settings } = this.#snapshot;
    const snapshot = buildSnapshot(
      [...this.#snapshot.byKey.values()].map((tool) => tool.definition),
      { ...settings, reserved: new Set([...this.#snapshot.reserved, ...names]) },
    );
    return this.#rebind(snapshot);
  }

  withPolicy(policy: ToolPolicy): ToolRegistry {
    return this.#rebind(Object.freeze({ ...this.#snapshot, policy }));
  }

  /** A scope re-derived on a new snapshot keeps its spec: deny masks admit new globals, allow masks exclude them. */
  #rebind(snapshot: RegistrySnapshot): ToolRegistry {
    return new RegistryView(snapshot, this.#scope === undefined ? undefined : buildScope(snapshot, this.#scope.agent, this.#scope.options));
  }

  executionMode(call: Pick<ToolCall, 'name' | 'arguments'>): 'parallel' | 'exclusive' {
    const resolution = typeof call.name === 'string' ? resolveToolName(this.#snapshot, this.#scope, call.name) : undefined;
    if (resolution?.found !== true) return 'exclusive';
    const classify = resolution.tool.definition.isConcurrencySafe;
    if (classify === undefined) return 'exclusive';
    try {
      const args = typeof call.arguments === 'string' ? (JSON.parse(call.arguments) as unknown) : call.arguments;
      // A configOnly key is replaced by the configured value at dispatch: classifying the model's
      // value would let the model choose the mode (a smuggled `dryRun: true` runs writes in parallel).
      const configOnly = resolution.tool.configOnly;
      if (configOnly.size > 0 && typeof args === 'object' && args !== null) {
        for (const key of configOnly) if (Object.hasOwn(args, key)) return 'exclusive';
      }
      // The classifier sees only arguments that validate; an asynchronous validator cannot answer here.
      const validated = resolution.tool.validateInput(args ?? {});
      if (validated instanceof Promise) {
        validated.catch(() => undefined);
        return 'exclusive';
      }
      return validated.ok && classify(validated.value) === true ? 'parallel' : 'exclusive';
    } catch {
      return 'exclusive';
    }
  }

  on<TName extends ToolgateEventName>(event: TName, listener: ToolgateListener<TName>): () => void {
    return this.#snapshot.bus.on(event, listener);
  }
}

let nestedCounter = 0;

/**
 * The answer for a nested call its parent may not put to a person: a
 * script whose earlier call a person rejected does not get to ask again,
 * so it cannot wear the person down with prompts until one is approved.
 */
const REJECTED_WITHOUT_ASKING: ToolApprovalDecision = Object.freeze({ outcome: 'reject', reason: 'a person rejected an earlier call of this script; it is not asked again', by: 'toolgate' });

/**
 * The approval regime of a nested call that stops asking once `stop`
 * aborts. Before, it asks as the enclosing call does; after, it answers no
 * without asking. A prompt open when `stop` aborts is withdrawn (its signal
 * aborts) and answered no at once: a person who said no to one call of a
 * script is not left with its other prompts to answer, one of which they
 * might approve unread.
 */
function stopAskingWhen(approval: ToolApprovalContext | undefined, stop: AbortSignal | undefined): ToolApprovalContext | undefined {
  const ask = approval?.confirm;
  // Without a hook nobody is asked: the call is refused as it would be anyway.
  if (approval === undefined || ask === undefined || stop === undefined) return approval;
  const confirm: ConfirmActionHook = (request, signal) => {
    if (stop.aborted) return Promise.resolve(REJECTED_WITHOUT_ASKING);
    return new Promise((resolve, reject) => {
      const answerNo = (): void => resolve(REJECTED_WITHOUT_ASKING);
      stop.addEventListener('abort', answerNo, { once: true });
      ask(request, signal === undefined ? stop : AbortSignal.any([signal, stop]))
        .then(resolve, reject)
        .finally(() => stop.removeEventListener('abort', answerNo));
    });
  };
  return { ...approval, confirm };
}

function toolInfo(tool: CompiledTool): ToolInfo {
  return Object.freeze({
    name: tool.name,
    version: tool.version,
    key: tool.key,
    description: tool.description,
    inputSchema: tool.modelSchema,
    outputSchema: tool.outputSchema,
    facts: Object.freeze({ ...(tool.definition.facts ?? {}) }),
    source: tool.policyView.source,
    effect: tool.policyView.effect,
    risk: tool.policyView.risk,
    governed: tool.actionClass !== undefined,
    writes: writes(tool),
    policyView: tool.policyView,
  });
}

function buildScope(snapshot: RegistrySnapshot, agent: string, options: ScopeOptions): ScopeState {
  const tools: readonly AnyToolDefinition[] = options.tools ?? [];
  if (!Array.isArray(tools as unknown)) throw new ConfigurationError('scope.tools', 'must be an array of tool definitions');
  const local = new Map<string, CompiledTool[]>();
  const localKeys = new Map<string, CompiledTool>();
  for (const definition of tools) addTool(localKeys, local, compileTool(definition));
  checkLocalWireNames(snapshot, local);
  const restrictions: readonly unknown[] = options.restrict === undefined ? [] : Array.isArray(options.restrict) ? options.restrict : [options.restrict];
  const masks = restrictions.map((mask, index) => buildMask(snapshot, local, mask, `scope.restrict[${index}]`));
  const presentAs = checkPresentation(options.presentAs, 'scope.presentAs');
  requireRuntime(presentAs, snapshot.codeRuntime, 'scope.presentAs');
  // Keep a copy of the spec: the caller's arrays may change later, the scope may not.
  const spec: ScopeOptions = {
    tools: Object.freeze([...tools]),
    restrict: Object.freeze(masks.map((mask): ScopeRestriction => (mask.kind === 'allow' ? { allow: [...mask.names] } : { deny: [...mask.names] }))),
    ...(presentAs === undefined ? {} : { presentAs }),
  };
  return Object.freeze({ agent, options: spec, local, masks: Object.freeze(masks), presentAs });
}

/**
 * A local tool shadows a global one of the same name, but two tools of different
 * names that a model would call by the same wire name (`name__v1_2_0`) are
 * duplicates across the layers too, as within one.
 */
function checkLocalWireNames(snapshot: RegistrySnapshot, local: ReadonlyMap<string, readonly CompiledTool[]>): void {
  for (const versions of local.values()) {
    for (const tool of versions) {
      const wire = wireToolName(tool.name, tool.version);
      let clash: string | undefined;
      if (tool.version !== undefined) {
        // A global bare name equal to this version's wire name (and not itself shadowed).
        if (snapshot.byName.has(wire) && !local.has(wire)) clash = wire;
      } else {
        const global = findWireName(snapshot.byName, wire);
        // A global version whose wire name is this bare name, unless a local tool shadows its name.
        if (global !== undefined && !local.has(snapshot.byKey.get(global)?.name ?? '')) clash = global;
      }
      if (clash !== undefined) throw new DuplicateToolError(tool.name, tool.version, `its wire name "${wire}" is also the wire name of the global "${clash}"`);
    }
  }
}

/** A mask names known global names only: not a scope-local tool, not the reserved transport, never empty. */
function buildMask(snapshot: RegistrySnapshot, local: ReadonlyMap<string, unknown>, mask: unknown, field: string): ScopeMask {
  const record = (typeof mask === 'object' && mask !== null ? mask : {}) as { allow?: unknown; deny?: unknown };
  const hasAllow = Object.hasOwn(record, 'allow');
  if (hasAllow === Object.hasOwn(record, 'deny')) throw new ConfigurationError(field, 'must be either { allow } or { deny }');
  const names: unknown = hasAllow ? record.allow : record.deny;
  if (!Array.isArray(names) || names.length === 0) throw new ConfigurationError(field, 'must be a non-empty { allow } or { deny } list');
  for (const name of names as unknown[]) {
    if (typeof name !== 'string') throw new ConfigurationError(field, 'must list tool names (strings)');
    if (name === CODE_MODE_TOOL_NAME) throw new ConfigurationError(field, `cannot name the reserved "${CODE_MODE_TOOL_NAME}" transport`);
    if (local.has(name)) throw new ConfigurationError(field, `names "${name}", a tool local to this scope`);
    if (!snapshot.byName.has(name) && !snapshot.reserved.has(name)) throw new ConfigurationError(field, `names an unknown tool "${name.slice(0, 64)}"`);
  }
  return Object.freeze({ kind: hasAllow ? 'allow' : 'deny', names: new Set(names as string[]) });
}
