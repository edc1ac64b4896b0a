import type { ResolvedAction } from '../action/resolved-action.js';
import type { ToolPolicyDenyReason } from '../errors/tool-errors.js';
import type { PolicyTarget, ToolEffect, ToolPolicyClass, ToolRisk, ToolSource } from '../tools/tool-types.js';

/** A rule that took part in a decision, for audit and `explain`. */
export interface MatchedRule {
  readonly id: string;
  readonly source: string;
  readonly decision: 'allow' | 'ask' | 'deny';
  /** The rule as written (`Bash(git push:*)`) or summarised: what a person reads. */
  readonly rule?: string;
}

/** One discriminant for every policy decision (shorthand is normalised at the edge). */
export type PolicyDecision =
  | { readonly kind: 'allow'; readonly matched: readonly MatchedRule[]; readonly policyVersion?: number }
  | { readonly kind: 'ask'; readonly reason?: string; readonly matched: readonly MatchedRule[]; readonly policyVersion?: number }
  | {
      readonly kind: 'deny';
      /** The snapshot version that decided (policies built by `createPolicy` always set it). */
      readonly policyVersion?: number;
      readonly reason: ToolPolicyDenyReason;
      /** Secret-free explanation shown in the error message. */
      readonly detail?: string;
      /** A pure scope denial: refused before any side effect, safe to feed back. */
      readonly recoverable?: boolean;
      readonly retryAfterMs?: number;
      readonly matched: readonly MatchedRule[];
    };

/** What a policy sees of the tool: identity and class, never the body. */
export interface PolicyToolView {
  readonly name: string;
  readonly version: string | undefined;
  readonly source: ToolSource;
  readonly effect: ToolEffect;
  readonly risk: ToolRisk;
  readonly policy: Required<Omit<ToolPolicyClass, 'egress'>> & { readonly egress: ToolPolicyClass['egress'] | undefined };
  readonly permissions: readonly string[];
  readonly readOnly: boolean;
  /** The command line the tool always runs, as its definition declares: the command rules judge it. */
  readonly fixedArgv?: readonly string[] | undefined;
  /** What a call reaches on the model's behalf, as its definition declares: `'mcp'`, the upstream tool its arguments name. */
  readonly delegatesTo?: 'mcp' | undefined;
}

export interface IdentityPolicyInput {
  readonly tool: PolicyToolView;
  readonly agent: string | undefined;
}

export interface ArgumentPolicyInput extends IdentityPolicyInput {
  /** The complete effective arguments, validated. */
  readonly args: unknown;
  /** The tool's guardrail target, computed from the effective arguments. */
  readonly target: PolicyTarget | undefined;
  /** The target resolved (real paths, exact argv, parsed URL): when present, the floor and the rules judge it. */
  readonly action?: ResolvedAction | undefined;
  readonly gateApproved: boolean;
}

/**
 * The seam the pipeline calls into (stages 4 and 7). `createPolicy` builds
 * the full declarative policy; any object with this shape works.
 *
 * Decisions are synchronous: a policy is a pure function of a snapshot.
 */
export interface ToolPolicy {
  /** Monotonic snapshot version; every decision records it. */
  readonly version: number;
  /** Stage 4: rules on the tool alone, before any input is parsed. */
  decideIdentity(input: IdentityPolicyInput): PolicyDecision;
  /** Stage 7: guardrails and rules on the effective arguments. */
  decideArguments(input: ArgumentPolicyInput): PolicyDecision;
  /**
   * Where a path stands for this policy: relative to its workspace (undefined
   * outside every root) and whether it is protected. Optional; the pipeline
   * adds it to the resolved action, so the approver sees the policy's view.
   */
  classifyPath?(path: string): PathPlacement;
}

export interface PathPlacement {
  readonly relative: string | undefined;
  readonly protected: boolean;
}
