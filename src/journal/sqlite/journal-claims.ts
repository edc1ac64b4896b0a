import { ToolPolicyError, type UnresolvedClaim } from '../../core/internal.js';
import type { OpenClaim } from './open-claims.js';

/** A `claims` row as the journal reads it. */
export interface ClaimRow {
  readonly seq: number;
  readonly at: number;
  readonly claim_id: string;
  readonly key: string;
  readonly state: string;
  readonly body: string;
}

/** The JSON body of a claim row. */
export interface ClaimBody {
  readonly callId: string;
  readonly runId?: string;
  readonly tool: string;
  readonly agent?: string;
  readonly actionDigest?: string;
  readonly arguments?: unknown;
  readonly target?: UnresolvedClaim['target'];
  readonly startedAt: number;
  readonly holder?: string;
}

/** The refusal, naming the claim an operator resolves and when it started: never the arguments. */
export function unresolvedClaimError(toolName: string, claim: ClaimRow): ToolPolicyError {
  const startedAt = (JSON.parse(claim.body) as Partial<ClaimBody>).startedAt;
  const since = typeof startedAt === 'number' && Number.isFinite(startedAt) ? `, started ${new Date(startedAt).toISOString()}` : '';
  return new ToolPolicyError(toolName, 'unresolved_claim', {
    detail: `was refused: an earlier dispatch of the same action (journal claim ${claim.claim_id}${since}) may have started and never settled; it is not run again until an operator resolves that claim`,
  });
}

/** An open claim of this action that this instance does not hold (a crash left it, or another process runs it). */
export function openClaimOfAction(open: ReadonlyMap<string, OpenClaim>, actionDigest: string, held: (claim: OpenClaim) => boolean): OpenClaim | undefined {
  // Keys are `actionDigest:callId`.
  const prefix = `${actionDigest}:`;
  for (const claim of open.values()) if (claim.key.startsWith(prefix) && !held(claim)) return claim;
  return undefined;
}
