import type { CodeRuntime } from '../code-mode/code-mode-types.js';
import type { EventBus } from '../events/event-bus.js';
import type { ToolHooks } from '../hooks/hook-types.js';
import type { ToolHost, ToolResultLimits } from '../host/tool-host.js';
import type { Journal } from '../journal/journal-types.js';
import type { ToolPolicy } from '../policy/policy-types.js';
import type { CompiledTool } from '../tools/compile-tool.js';
import type { PresentationMode, ScopeOptions, ScopeRestriction } from './registry-types.js';

/** The reserved Code Mode transport: never registered, shadowed, restricted or removed. */
export const CODE_MODE_TOOL_NAME = 'run_code';

export interface ResolvedLimits {
  readonly maxInputBytes: number;
  readonly maxOutputBytes: number;
  readonly content: ToolResultLimits;
}

export interface ResolvedHooks {
  readonly preExecute: NonNullable<ToolHooks['preExecute']>;
  readonly guards: NonNullable<ToolHooks['guards']>;
  readonly around: NonNullable<ToolHooks['around']>;
  readonly postExecute: NonNullable<ToolHooks['postExecute']>;
}

/** One immutable snapshot. Views (global and scoped) share it. */
export interface RegistrySnapshot {
  /** Every tool by key (`name` or `name@version`). */
  readonly byKey: ReadonlyMap<string, CompiledTool>;
  /** Every version of a name, sorted by key. */
  readonly byName: ReadonlyMap<string, readonly CompiledTool[]>;
  /** Names known and restrictable without a definition. */
  readonly reserved: ReadonlySet<string>;
  readonly host: ToolHost;
  readonly policy: ToolPolicy;
  readonly journal: Journal | undefined;
  readonly hooks: ResolvedHooks;
  readonly limits: ResolvedLimits;
  readonly presentAs: PresentationMode;
  /** Code Mode: the runtime and its compiled `run_code` transport. Kept out of `byName`: no mask, shadow or removal reaches it. */
  readonly codeRuntime: CodeRuntime | undefined;
  readonly codeTool: CompiledTool | undefined;
  /** Shared by every snapshot derived from the same registry. */
  readonly bus: EventBus;
}

/** A scope: an agent's view of a snapshot. */
export interface ScopeState {
  readonly agent: string;
  readonly options: ScopeOptions;
  readonly local: ReadonlyMap<string, readonly CompiledTool[]>;
  readonly masks: readonly ScopeRestriction[];
  readonly presentAs: PresentationMode | undefined;
}
