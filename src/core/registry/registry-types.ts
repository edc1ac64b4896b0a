import type { CodeRuntime } from '../code-mode/code-mode-types.js';
import type { DispatchContext, ToolCall, ToolOutcome } from '../dispatch/dispatch-types.js';
import type { Sha256Text } from '../digest/sha256.js';
import type { ToolgateEventName, ToolgateListener } from '../events/event-types.js';
import type { ToolHooks } from '../hooks/hook-types.js';
import type { ToolHost, ToolResultLimits } from '../host/tool-host.js';
import type { Journal } from '../journal/journal-types.js';
import type { PolicyToolView, ToolPolicy } from '../policy/policy-types.js';
import type { ProjectOptions, ProviderName, ProviderTools } from '../projection/projection-types.js';
import type { AnyToolDefinition, JsonSchema, ToolEffect, ToolFacts, ToolRisk, ToolSource } from '../tools/tool-types.js';
import type { InvocationPlan } from '../plan/plan-types.js';

export type PresentationMode = 'native' | 'code' | 'both';

/** A mask on global tools for one scope. Several masks intersect. */
export type ScopeRestriction = { readonly allow: readonly string[] } | { readonly deny: readonly string[] };

export interface ScopeOptions {
  /** Agent-local tools; they shadow same-named globals in this scope. */
  readonly tools?: readonly AnyToolDefinition[];
  readonly restrict?: ScopeRestriction | readonly ScopeRestriction[];
  /** This agent's presentation, shadowing the registry default. */
  readonly presentAs?: PresentationMode;
}

export interface RegistryLimits {
  /** Canonical effective-argument size ceiling, bytes. Default 64 KiB. */
  readonly maxInputBytes?: number;
  /** Canonical result size ceiling, bytes. Default 256 KiB. */
  readonly maxOutputBytes?: number;
  /** Model-facing content ceilings. Default 32 KiB / 2,000 lines. */
  readonly content?: Partial<ToolResultLimits>;
  /**
   * Calls that run at once, every view and agent of this registry together
   * (`with` keeps the count): a tool body, and the rendering and bounding of
   * its result. A call past them waits its turn once it is approved, before
   * it is claimed, until a place frees or its signal aborts. A nested call
   * (a `run_code` script's) runs in the place its parent holds, and a body
   * gives its place back while `invokeAgent` runs another agent. The calls
   * to one MCP server take at most half the places. Default 8.
   */
  readonly maxConcurrentCalls?: number;
  /** Calls that may wait for one of those places; past them a call is refused at once (`ToolBusyError`). Default 1024. */
  readonly maxQueuedCalls?: number;
}

export interface CreateToolRegistryOptions {
  readonly tools: readonly AnyToolDefinition[];
  /** The host that performs side effects. Default: no capabilities. */
  readonly host?: ToolHost;
  /**
   * A synchronous SHA-256 of UTF-8 text (lowercase hex) for the input and
   * action digests; overrides `host.sha256`. Default: the host's, else Web
   * Crypto. Checked against known answers when the registry is built.
   */
  readonly sha256?: Sha256Text;
  /** Default: the guardrail floor (deny-all commands and domains). */
  readonly policy?: ToolPolicy;
  readonly journal?: Journal;
  readonly hooks?: ToolHooks;
  readonly limits?: RegistryLimits;
  readonly presentAs?: PresentationMode;
  /**
   * The Code Mode sandbox. Present ⇒ the registry holds the reserved
   * `run_code` transport; required when `presentAs` (here or in any scope)
   * is `code` or `both`.
   */
  readonly codeRuntime?: CodeRuntime;
  /** Names known and restrictable without a definition. */
  readonly reserved?: readonly string[];
}

/** What `list()` reports for a tool: everything but the body. */
export interface ToolInfo {
  readonly name: string;
  readonly version: string | undefined;
  /** `name` or `name@version`: what a call names. */
  readonly key: string;
  readonly description: string;
  /** Model-visible input schema (configOnly removed). */
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | undefined;
  readonly facts: ToolFacts;
  readonly source: ToolSource;
  readonly effect: ToolEffect;
  readonly risk: ToolRisk;
  readonly governed: boolean;
  readonly writes: boolean;
  /** What a policy sees of this tool (identity and class), as the pipeline passes it. */
  readonly policyView: PolicyToolView;
}

export interface ToolRegistry {
  /** The scope's agent, or undefined for the global view. */
  readonly agent: string | undefined;
  readonly presentAs: PresentationMode;
  /** The Code Mode sandbox, when one is configured. */
  readonly codeRuntime: CodeRuntime | undefined;
  readonly host: ToolHost;
  readonly policy: ToolPolicy;
  readonly journal: Journal | undefined;
  /** The limits in force, every default filled in. */
  readonly limits: Required<Omit<RegistryLimits, 'content'>> & { readonly content: ToolResultLimits };
  /** Run one call through the whole pipeline. Never rejects for a tool-level failure. */
  dispatch(call: ToolCall, context?: DispatchContext): Promise<ToolOutcome>;
  /** The invocation plan for a call: ready, approval_required or denied, with digests. No side effect. */
  prepare(call: ToolCall, context?: DispatchContext): Promise<InvocationPlan>;
  /** Resolution as this scope sees it (shadowing and masks applied). */
  get(name: string): AnyToolDefinition | undefined;
  list(): readonly ToolInfo[];
  /** Model-visible schemas of everything this scope can see. */
  schemas(): readonly { readonly name: string; readonly description: string; readonly inputSchema: JsonSchema }[];
  project<TProvider extends ProviderName>(provider: TProvider, options?: ProjectOptions): ProviderTools<TProvider>;
  isAdmitted(name: string): boolean;
  scope(agent: string, options?: ScopeOptions): ToolRegistry;
  /** A new snapshot with these tools added (and `remove` names dropped first). The old one is untouched. */
  with(tools: readonly AnyToolDefinition[], options?: { readonly remove?: readonly string[] }): ToolRegistry;
  /** A new snapshot where these names are known and restrictable without a definition. */
  reserve(...names: string[]): ToolRegistry;
  /** A new snapshot with another policy (live narrowing swaps snapshots). */
  withPolicy(policy: ToolPolicy): ToolRegistry;
  executionMode(call: Pick<ToolCall, 'name' | 'arguments'>): 'parallel' | 'exclusive';
  on<TName extends ToolgateEventName>(event: TName, listener: ToolgateListener<TName>): () => void;
}
