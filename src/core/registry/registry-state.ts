import type { CodeRuntime } from '../code-mode/code-mode-types.js';
import type { Sha256Text } from '../digest/sha256.js';
import type { CallPlaces } from '../dispatch/create-call-places.js';
import type { EventBus } from '../events/event-bus.js';
import type { ToolHooks } from '../hooks/hook-types.js';
import type { ToolHost, ToolResultLimits } from '../host/tool-host.js';
import type { Journal } from '../journal/journal-types.js';
import type { ToolPolicy } from '../policy/policy-types.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { PresentationMode, ScopeOptions } from './registry-types.js';

/** The reserved Code Mode transport: never registered, shadowed, restricted or removed. */
export const CODE_MODE_TOOL_NAME = 'run_code';

export interface ResolvedLimits {
  readonly maxInputBytes: number;
  readonly maxOutputBytes: number;
  readonly content: ToolResultLimits;
  readonly maxConcurrentCalls: number;
  readonly maxQueuedCalls: number;
}

export interface ResolvedHooks {
  readonly preExecute: NonNullable<ToolHooks['preExecute']>;
  readonly guards: NonNullable<ToolHooks['guards']>;
  readonly around: NonNullable<ToolHooks['around']>;
  readonly postExecute: NonNullable<ToolHooks['postExecute']>;
}

export interface FoundResolution {
  readonly found: true;
  /** The tool's bare name (what scope masks gate). */
  readonly name: string;
  readonly tool: CompiledTool;
  /** `tool.definition`, held here so a lookup touches one object after the map. */
  readonly definition: CompiledTool['definition'];
}

/** One immutable snapshot. Views (global and scoped) share it. */
export interface RegistrySnapshot {
  /** Every tool by key (`name` or `name@version`). */
  readonly byKey: ReadonlyMap<string, CompiledTool>;
  /** Every version of a name, sorted by key. */
  readonly byName: ReadonlyMap<string, readonly CompiledTool[]>;
  /**
   * Every name a global call may use that finds a tool: each key
   * (`name@1.2.0`), each wire name (`name__v1_2_0`) and each bare name with
   * a single version. Lookup on the hot path is one `Map.get`, no allocation.
   */
  readonly resolutions: ReadonlyMap<string, FoundResolution>;
  /** The same names → definitions: the global view's `get` is exactly one `Map.get`. */
  readonly definitions: ReadonlyMap<string, CompiledTool['definition']>;
  /** Names known and restrictable without a definition. */
  readonly reserved: ReadonlySet<string>;
  readonly host: ToolHost;
  /** The synchronous SHA-256 digests use (registry options, else the host); undefined ⇒ Web Crypto. */
  readonly sha256: Sha256Text | undefined;
  readonly policy: ToolPolicy;
  readonly journal: Journal | undefined;
  readonly hooks: ResolvedHooks;
  readonly limits: ResolvedLimits;
  /** The places of `limits.maxConcurrentCalls`: the same for every snapshot `with` derives, so the bound holds across them. */
  readonly places: CallPlaces;
  readonly presentAs: PresentationMode;
  /** Code Mode: the runtime and its compiled `run_code` transport. Kept out of `byName`: no mask, shadow or removal reaches it. */
  readonly codeRuntime: CodeRuntime | undefined;
  readonly codeTool: CompiledTool | undefined;
  /** Shared by every snapshot derived from the same registry. */
  readonly bus: EventBus;
}

/** One restriction, snapshotted when the scope was built: later changes to the caller's arrays do nothing. */
export interface ScopeMask {
  readonly kind: 'allow' | 'deny';
  readonly names: ReadonlySet<string>;
}

/** A scope: an agent's view of a snapshot. */
export interface ScopeState {
  readonly agent: string;
  /** The scope's spec (copied), re-applied when a new snapshot is derived. */
  readonly options: ScopeOptions;
  readonly local: ReadonlyMap<string, readonly CompiledTool[]>;
  readonly masks: readonly ScopeMask[];
  readonly presentAs: PresentationMode | undefined;
}
