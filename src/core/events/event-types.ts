import type { ActionDisplay } from '../action/display-action.js';
import type { ToolgateError } from '../errors/toolgate-error.js';
import type { ToolActionClass, ToolActionPreview, ToolApprovalDecision } from '../policy/approval-types.js';
import type { PolicyDecision } from '../policy/policy-types.js';
import type { ToolReceipt } from '../receipts/receipt-types.js';

interface CallEventBase {
  readonly callId: string;
  readonly toolName: string;
  readonly agent: string | undefined;
  readonly parent: string | undefined;
  readonly at: number;
}

/** Every event's typed payload, keyed by its noun-verb kebab name. */
export interface ToolgateEventMap {
  'tool-call-requested': CallEventBase & {
    /** Redacted, clipped argument projection (secrets scrubbed before clipping). */
    readonly toolInput: unknown;
  };
  'policy-decided': CallEventBase & {
    readonly stage: 'identity' | 'arguments' | 'hooks';
    readonly decision: PolicyDecision;
    readonly policyVersion: number | undefined;
  };
  'approval-requested': CallEventBase & {
    readonly action: ToolActionClass | undefined;
    /** Secret-free preview. The resolved action itself never appears in an event, only its masked display. */
    readonly preview: ToolActionPreview;
    readonly target?: ActionDisplay;
    readonly actionDigest: string;
    readonly toolInput: unknown;
  };
  'approval-resolved': CallEventBase & {
    readonly decision: ToolApprovalDecision | { readonly outcome: 'cancelled' } | { readonly outcome: 'error' };
    readonly actionDigest: string;
  };
  'tool-call-started': CallEventBase;
  'tool-call-finished': CallEventBase & { readonly durationMs: number };
  'tool-call-failed': CallEventBase & { readonly durationMs: number; readonly error: ReturnType<ToolgateError['toJSON']> };
  'output-spilled': CallEventBase & { readonly handle: string; readonly bytes: number };
  'tool-result': CallEventBase & {
    readonly ok: boolean;
    readonly code: string;
    readonly durationMs: number;
    readonly receipt: ToolReceipt;
  };
  /** A listener threw. Reported, never swallowed, never breaks the pipeline. */
  'observer-error': {
    readonly event: string;
    readonly error: unknown;
    readonly at: number;
  };
}

export type ToolgateEventName = keyof ToolgateEventMap;
export type ToolgateEvent<TName extends ToolgateEventName = ToolgateEventName> = ToolgateEventMap[TName];
export type ToolgateListener<TName extends ToolgateEventName> = (event: ToolgateEventMap[TName]) => void;
