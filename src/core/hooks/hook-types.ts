import type { CompiledTool } from '../tools/compile-tool.js';
import type { ToolDispatchContext } from '../tools/tool-types.js';

/** The readonly view of a call that hooks see. Arguments are frozen. */
export interface ToolExecution {
  readonly callId: string;
  readonly toolName: string;
  readonly toolVersion: string | undefined;
  readonly agent: string | undefined;
  readonly parent: string | undefined;
  /** The complete effective arguments, validated and frozen. */
  readonly arguments: unknown;
  readonly signal: AbortSignal | undefined;
  /** What the call reaches on the model's behalf, as the tool's definition declares: `'mcp'`, the upstream tool its arguments name. */
  readonly delegatesTo?: 'mcp' | undefined;
}

/** `preExecute` verdicts. Rewriting input is deliberately not offered. */
export type PreExecuteDecision =
  | { readonly kind: 'allow' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'ask'; readonly reason?: string };

/** Ordered allow / deny / ask gate. `undefined` means no opinion. */
export type PreExecuteHook = (execution: ToolExecution) => PreExecuteDecision | undefined | Promise<PreExecuteDecision | undefined>;

/** A monotonic guard after `preExecute`: a returned string denies, and nothing later can undo it. */
export type ToolGuard = (execution: ToolExecution) => string | undefined;

/** The view an `around` wrapper gets: only `signal` may be replaced. */
export interface ToolDispatchExecution extends Omit<ToolExecution, 'signal'> {
  signal: AbortSignal | undefined;
  readonly tool: Pick<CompiledTool, 'name' | 'version' | 'policyView' | 'actionClass'> & { readonly idempotent: boolean };
  /** Attempt number, from 1; a retry wrapper increments it. */
  attempt: number;
}

export type DispatchNext = (execution: ToolDispatchExecution) => Promise<unknown>;
/** `(next) => next` wrapper around the tool body (timeout, retry, metrics). The first entry is the outermost. */
export type AroundWrapper = (next: DispatchNext) => DispatchNext;

export interface PostExecuteState extends ToolExecution {
  readonly ok: boolean;
  /** The full value (success only). */
  readonly value: unknown;
  /** The rendered, not yet bounded, content. */
  readonly content: string;
  readonly errorCode: string | undefined;
}

export type PostExecuteDecision =
  | {
      readonly kind: 'accept';
      /** Replace the model-facing content (the value stays). */
      readonly content?: string;
      /** Replace the value (revalidated, content re-rendered). Not together with `content`. */
      readonly value?: unknown;
      readonly contexts?: readonly string[];
    }
  | { readonly kind: 'block'; readonly feedback: string; readonly contexts?: readonly string[] };

export type PostExecuteHook = (state: PostExecuteState) => PostExecuteDecision | undefined | Promise<PostExecuteDecision | undefined>;

export interface ToolHooks {
  readonly preExecute?: readonly PreExecuteHook[];
  readonly guards?: readonly ToolGuard[];
  readonly around?: readonly AroundWrapper[];
  readonly postExecute?: readonly PostExecuteHook[];
}

export type { ToolDispatchContext };
