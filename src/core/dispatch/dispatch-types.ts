import type { ToolgateError } from '../errors/toolgate-error.js';
import type { MediaHandle, ToolHostCallOptions, ToolResultLimits } from '../host/tool-host.js';
import type { ToolApprovalContext } from '../policy/approval-types.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';
import type { Untrusted } from '../untrusted/untrusted.js';

/** A tool call as a model (or a workflow node) asked for it. */
export interface ToolCall {
  readonly callId: string;
  /** Exact name, or `name@version` to pin a version. */
  readonly name: string;
  /** The model's arguments: an object, or a JSON string of one. */
  readonly arguments?: unknown;
  /** A call the provider executed itself; always refused. */
  readonly providerExecuted?: boolean;
}

/** Mapping of effective-argument fields from configuration (`inputMapping`) or of result fields to state (`outputMapping`). */
export type FieldMapping = Readonly<Record<string, string>>;

export interface ToolCallConfig {
  /** Values for the tool's `configOnly` parameters (and any other configuration). Config wins. */
  readonly values?: Readonly<Record<string, unknown>>;
  /**
   * Effective arguments taken from configuration state: target field → a
   * dotted path into `state`. Applied after the model arguments.
   */
  readonly inputMapping?: FieldMapping;
  /** The workflow state `inputMapping` reads from. */
  readonly state?: Readonly<Record<string, unknown>>;
  /** Result fields copied out of the FULL result: state key → dotted path into the result. */
  readonly outputMapping?: FieldMapping;
}

export interface DispatchContext {
  /** The calling agent (also the scope view's agent). */
  readonly agent?: string;
  /** What this caller may dispatch. Absent ⇒ nothing is granted: registered is not granted. */
  readonly grantedTools?: ReadonlySet<string> | readonly string[];
  readonly config?: ToolCallConfig;
  /** Present ⇒ the interactive approval regime is active. */
  readonly approval?: ToolApprovalContext;
  /** A human gate approved this workflow step (for `requiresGate` tools). */
  readonly gateApproved?: boolean;
  /** Effective-argument keys whose values are secret-tainted; any present key is refused. */
  readonly secretArgKeys?: ReadonlySet<string> | readonly string[];
  /** Model-facing content limits; default 32 KiB / 2,000 lines. */
  readonly limits?: Partial<ToolResultLimits>;
  readonly signal?: AbortSignal;
  /** Synchronous trusted admission just before the host is touched. Throw to refuse. */
  readonly beforeDispatch?: (toolName: string) => void;
  readonly invokeAgent?: (agent: string, input: unknown, signal?: AbortSignal) => Promise<unknown>;
  /** The enclosing call's id, for nested calls. */
  readonly parent?: string;
  /** Run id for journal rows and spills. */
  readonly runId?: string;
  readonly hostCallOptions?: ToolHostCallOptions;
}

export interface ToolOutcomeBase {
  readonly callId: string;
  readonly toolName: string;
  /** What the model sees: bounded and marked untrusted. */
  readonly content: Untrusted<string>;
  /** Built on first read. */
  readonly receipt: ToolReceipt;
}

export interface ToolSuccess<TValue = unknown> extends ToolOutcomeBase {
  readonly ok: true;
  /** The full result (after `outputMapping` and `postExecute`). */
  readonly value: TValue;
  /** State written by `outputMapping`, from the full result. */
  readonly mapped?: Readonly<Record<string, unknown>> | undefined;
  readonly attachments?: readonly Untrusted<MediaHandle>[] | undefined;
  /** Ordered context messages for the agent loop, placed after the result. */
  readonly contexts?: readonly Untrusted<string>[] | undefined;
  /**
   * True when a `postExecute` hook or the definition's `finalizeContent` wrote
   * `content`, so it is not the rendering of `value` (a redaction, say). Code
   * that hands a model the value instead of the content must hand on the
   * content then: Code Mode does.
   */
  readonly contentReplaced?: boolean;
}

export interface ToolFailure extends ToolOutcomeBase {
  readonly ok: false;
  readonly error: ToolgateError;
  readonly contexts?: readonly Untrusted<string>[] | undefined;
}

export type ToolOutcome<TValue = unknown> = ToolSuccess<TValue> | ToolFailure;
